// Live updates for the console's pages: the server sends a "change" event naming changed
// resources; a page that shows one of them fetches itself again and swaps its <main>. Pages
// are complete without this script; it only saves a reload. No dependencies, no inline code.
(() => {
  'use strict';
  const follows = (document.body.dataset.live || '').split(' ').filter(Boolean);
  if (follows.length === 0 || typeof EventSource === 'undefined') return;
  const status = document.getElementById('live-status');
  const concerns = (change) =>
    change.resync ||
    follows.some(
      (item) =>
        item === '*' ||
        change.uris.some((uri) => (item.endsWith('/') ? uri.startsWith(item) : uri === item)) ||
        (change.listChanged && item.endsWith('/')),
    );
  let timer = 0;
  let deferred = false;
  const editing = () => {
    const active = document.activeElement;
    return (
      active !== null &&
      active.closest('main') !== null &&
      /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)
    );
  };
  const refresh = async () => {
    if (editing()) {
      // Never replace a form the person is filling in; refresh once they leave it.
      deferred = true;
      return;
    }
    const response = await fetch(window.location.href, { credentials: 'same-origin' });
    if (!response.ok) return;
    const next = new DOMParser().parseFromString(await response.text(), 'text/html');
    const main = document.getElementById('main');
    const fresh = next.getElementById('main');
    if (!main || !fresh) return;
    const focusedId = document.activeElement && document.activeElement.id;
    main.replaceChildren(...Array.from(fresh.childNodes).map((node) => document.adoptNode(node)));
    if (focusedId) document.getElementById(focusedId)?.focus();
    if (status) status.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || '0') + 1);
  };
  document.addEventListener('focusout', () => {
    if (!deferred) return;
    deferred = false;
    setTimeout(() => void refresh(), 0);
  });
  const source = new EventSource('/console/live');
  source.addEventListener('open', () => {
    document.body.dataset.liveState = 'open';
  });
  source.addEventListener('change', (event) => {
    let change;
    try {
      change = JSON.parse(event.data);
    } catch {
      return;
    }
    if (!concerns(change)) return;
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 150);
  });
})();
