import { html, layout } from '../html.js';

/**
 * The login page. With tokens configured a person pastes a bearer token of the token table
 * (the same grants as over MCP); in local no-auth mode only the one-time link the server
 * printed at start opens it, and the person names themselves as the CLI's `--as` does.
 */
export const renderLogin = (
  options:
    | { readonly mode: 'token'; readonly error?: string | undefined }
    | {
        readonly mode: 'local';
        readonly code: string | undefined;
        readonly error?: string | undefined;
      },
): string => {
  const error = options.error ? html`<p class="error" role="alert">${options.error}</p>` : '';
  const main =
    options.mode === 'token'
      ? html`<h1>Sign in</h1>
          ${error}
          <form method="post" action="/console/login" class="login">
            <p>
              <label for="token">Access token</label>
              <input
                id="token"
                name="token"
                type="password"
                autocomplete="current-password"
                required
              />
            </p>
            <p class="hint">
              The bearer token you use over MCP: the console shows exactly what it grants.
            </p>
            <p><button type="submit">Sign in</button></p>
          </form>`
      : options.code === undefined
        ? html`<h1>Sign in</h1>
            ${error}
            <p>
              This server runs in local mode. Open the one-time login link it printed when it
              started (the <code>console</code> field of its <code>cogitave ready</code> log line);
              a used link is replaced by a new one in the log.
            </p>`
        : html`<h1>Sign in</h1>
            ${error}
            <form method="post" action="/console/login" class="login">
              <input type="hidden" name="code" value="${options.code}" />
              <p>
                <label for="name">Your name (recorded on your decisions)</label>
                <input
                  id="name"
                  name="name"
                  required
                  pattern="[A-Za-z0-9._\\-]{1,64}"
                  autocomplete="username"
                />
              </p>
              <p><button type="submit">Sign in</button></p>
            </form>`;
  return layout({ title: 'Sign in', main });
};
