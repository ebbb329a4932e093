import type { ReadScope } from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import { InvalidArgument, NotFound } from '../../runtime/errors.js';
import { catalogNodeUri } from '../read-model/projection.js';
import { findSitePages, listSourceSites, type SitePathNode } from '../read-model/queries.js';
import type { ResolveXrefArgs, XrefResolution } from '../read-service.js';
import { compareMonikers } from '../site.js';
import { LEGACY_SOURCE } from '../sources.js';
import { DEFAULT_MONIKER, MONIKER_HELP, MONIKER_PATTERN, UID_PATTERN } from '../vocabulary.js';
import {
  parseSiteReference,
  pathCandidates,
  pickVersion,
  sourcesAtBasePath,
  sourcesAtUrl,
} from '../xref.js';
import { checkMoniker, notFound } from './lookup.js';

/** `@uid`, `<xref:uid>`, `xref:uid`, each optionally with `?view=moniker`. */
export const parseXref = (xref: string): { uid: string; moniker?: string } | undefined => {
  const trimmed = xref.trim();
  const match =
    /^(?:<xref:([^>?#\s]+)(?:\?view=([^>#&\s]+))?[^>]*>|@([^?#\s]+)(?:\?view=([^#&\s]+))?|(?:xref:)?([^?#\s<>@]+)(?:\?view=([^#&\s]+))?)$/.exec(
      trimmed,
    );
  if (!match) return undefined;
  const raw = match[1] ?? match[3] ?? match[5];
  const view = match[2] ?? match[4] ?? match[6];
  if (raw === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  return view === undefined ? { uid: decoded } : { uid: decoded, moniker: view };
};

/** An xref (a uid, a site path or a URL of the site) to the node and section it names. */
export const resolveXref = async (
  db: Queryable,
  scope: ReadScope,
  args: ResolveXrefArgs,
): Promise<XrefResolution> => {
  const trimmed = args.xref.trim();
  const [written = '', hashAnchor] = trimmed.startsWith('<')
    ? [trimmed, undefined]
    : trimmed.split('#', 2);
  const parsed = parseXref(written);
  const asUid = parsed && UID_PATTERN.test(parsed.uid) ? parsed : undefined;
  const site = parseSiteReference(args.xref);
  if (!asUid && !site) {
    throw new InvalidArgument(
      `"${args.xref}" is not an xref; write a uid (@uid, <xref:uid>, xref:uid or uid), a site path (/guide/page#section) or a URL of the site, optionally with ?view=moniker`,
    );
  }
  // A URL's `?view=` names a moniker only on sites that use them (Learn); elsewhere it is noise.
  const view = site?.view !== undefined && MONIKER_PATTERN.test(site.view) ? site.view : undefined;
  const wanted = args.moniker ?? asUid?.moniker ?? view;
  if (wanted !== undefined && !MONIKER_PATTERN.test(wanted)) {
    throw new InvalidArgument(`moniker "${wanted}" must be ${MONIKER_HELP}`);
  }
  const answer = (node: SitePathNode, anchor: string | undefined): XrefResolution => {
    const section =
      anchor === undefined
        ? undefined
        : (node.sections ?? []).find((candidate) => candidate.anchor === anchor);
    return {
      uid: node.uid,
      label: node.label,
      title: node.title,
      uri: catalogNodeUri(node.label, node.uid),
      moniker:
        wanted ??
        (node.monikers.includes(DEFAULT_MONIKER)
          ? DEFAULT_MONIKER
          : (node.monikers[0] ?? DEFAULT_MONIKER)),
      source: node.source,
      path: node.path,
      section: section ? { anchor: section.anchor, heading: section.heading } : null,
    };
  };
  if (asUid) {
    const [node] = await findSitePages(db, scope, { uids: [asUid.uid] });
    if (node?.uid === asUid.uid) {
      if (wanted === undefined || node.monikers.includes(wanted)) return answer(node, hashAnchor);
      // Another version of the same page may carry the moniker.
      const versions =
        node.page === null
          ? []
          : await findSitePages(db, scope, {
              paths: [node.page],
              ...(node.source === null ? {} : { sources: [node.source] }),
            });
      const other = pickVersion(
        versions.filter((v) => v.page === node.page),
        node.page ?? '',
        wanted,
      );
      if (other) return answer(other, hashAnchor);
      checkMoniker(node.uid, node.monikers, wanted);
    }
  }
  if (site) {
    const sites = site.url ? sourcesAtUrl(site.url, await listSourceSites(db)) : undefined;
    // A URL of a site no source names: its path may still be a page of one.
    let path = sites?.path ?? site.path;
    let found = await findSitePages(db, scope, {
      paths: pathCandidates(path),
      ...(sites ? { sources: sites.sources } : {}),
    });
    // A path written with its site's base path (`/dotnet/maui/…`), as Learn pages link.
    const based =
      site.url || found.length > 0 ? undefined : sourcesAtBasePath(path, await listSourceSites(db));
    if (based) {
      path = based.path;
      found = await findSitePages(db, scope, {
        paths: pathCandidates(path),
        sources: based.sources,
      });
    }
    const bySource = new Map<string, SitePathNode[]>();
    for (const node of found) {
      const key = node.source ?? LEGACY_SOURCE;
      bySource.set(key, [...(bySource.get(key) ?? []), node]);
    }
    const picks = [...bySource.values()].flatMap((nodes) => {
      const exact = nodes.filter((node) => node.path === path);
      const pick = pickVersion(
        exact.length > 0 && wanted === undefined ? exact : nodes,
        path,
        wanted,
      );
      return pick ? [pick] : [];
    });
    if (picks.length > 1) {
      throw new InvalidArgument(
        `"${args.xref}" is a page of ${picks.length} sources: ${picks.map((p) => `${p.uid} (${p.source ?? LEGACY_SOURCE})`).join(', ')}; give its uid`,
        { candidates: picks.map((p) => ({ uid: p.uid, source: p.source })) },
      );
    }
    const [pick] = picks;
    if (pick) return answer(pick, site.anchor);
    if (found.length > 0 && wanted !== undefined) {
      const monikers = [...new Set(found.flatMap((node) => node.monikers))].sort(compareMonikers);
      throw new NotFound(
        `"${args.xref}" has no version for moniker "${wanted}"; it exists in: ${monikers.join(', ')}.`,
        { moniker: wanted, monikers },
      );
    }
  }
  throw await notFound(db, scope, asUid?.uid ?? site?.path ?? args.xref, 'Xref target');
};
