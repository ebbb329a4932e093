/**
 * Just enough of the Dockerfile syntax to know what the final stage of an image runs: line
 * continuations, comments, ENV (`key=value` pairs, quoted or not, and the old `ENV key value`
 * form), WORKDIR, USER, VOLUME, EXPOSE, ENTRYPOINT and CMD (exec form only: the shell form
 * would need a shell's parsing, and the images here do not use it). No engine needed.
 */
export interface ImageStage {
  readonly from: string;
  readonly env: Readonly<Record<string, string>>;
  readonly workdir: string | undefined;
  readonly user: string | undefined;
  readonly volumes: readonly string[];
  readonly exposedPorts: readonly number[];
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** `COPY --from=<stage> <source> <destination>` of the stage, in order. */
  readonly copiesFromStages: readonly { readonly source: string; readonly destination: string }[];
}

/** Logical instructions: continuation lines joined, comments and blank lines dropped. */
const instructions = (text: string): { keyword: string; rest: string }[] => {
  const out: { keyword: string; rest: string }[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (pending !== '' && line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = (pending + line).trim();
    pending = '';
    const match = /^(\S+)\s*(.*)$/s.exec(whole);
    if (match) out.push({ keyword: match[1]!.toUpperCase(), rest: match[2]! });
  }
  return out;
};

/** Words of an ENV line: whitespace-separated, double or single quotes keep spaces. */
const words = (text: string): string[] =>
  [...text.matchAll(/(?:[^\s"']+|"(?:[^"\\]|\\.)*"|'[^']*')+/g)].map((match) =>
    match[0].replace(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g, (_all, dq?: string, sq?: string) =>
      dq !== undefined ? dq.replace(/\\(.)/g, '$1') : (sq ?? ''),
    ),
  );

const execForm = (keyword: string, rest: string): string[] => {
  const value: unknown = JSON.parse(rest);
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new Error(`${keyword} must be in exec form (a JSON array of strings): ${rest}`);
  }
  return value;
};

export const parseFinalStage = (text: string): ImageStage => {
  const all = instructions(text);
  const lastFrom = all.map((instruction) => instruction.keyword).lastIndexOf('FROM');
  if (lastFrom === -1) throw new Error('no FROM in the Dockerfile');
  const env: Record<string, string> = {};
  let workdir: string | undefined;
  let user: string | undefined;
  const volumes: string[] = [];
  const exposedPorts: number[] = [];
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  const copiesFromStages: { source: string; destination: string }[] = [];
  for (const { keyword, rest } of all.slice(lastFrom + 1)) {
    switch (keyword) {
      case 'ENV': {
        const parts = words(rest);
        if (parts[0]?.includes('=')) {
          for (const part of parts) {
            const at = part.indexOf('=');
            env[part.slice(0, at)] = part.slice(at + 1);
          }
        } else if (parts[0] !== undefined) {
          env[parts[0]] = parts.slice(1).join(' ');
        }
        break;
      }
      case 'WORKDIR':
        workdir = rest.startsWith('/') || workdir === undefined ? rest : `${workdir}/${rest}`;
        break;
      case 'USER':
        user = rest;
        break;
      case 'VOLUME':
        volumes.push(...(rest.startsWith('[') ? execForm(keyword, rest) : words(rest)));
        break;
      case 'EXPOSE':
        exposedPorts.push(...words(rest).map((port) => Number.parseInt(port, 10)));
        break;
      case 'ENTRYPOINT':
        entrypoint = execForm(keyword, rest);
        break;
      case 'CMD':
        cmd = execForm(keyword, rest);
        break;
      case 'COPY': {
        const parts = words(rest);
        if (parts[0]?.startsWith('--from=') && parts.length === 3) {
          copiesFromStages.push({ source: parts[1]!, destination: parts[2]! });
        }
        break;
      }
      default:
        break;
    }
  }
  return {
    from: all[lastFrom]!.rest,
    env,
    workdir,
    user,
    volumes,
    exposedPorts,
    entrypoint,
    cmd,
    copiesFromStages,
  };
};
