import type { Readable } from 'node:stream';

/** Calls `onLine` with each complete line `stream` delivers, without its newline. */
export const forEachLine = (stream: Readable, onLine: (line: string) => void): void => {
  let pending = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      onLine(line);
    }
  });
};
