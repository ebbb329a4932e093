import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies above this size are refused (413) before anything parses them. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class BodyTooLarge extends Error {}

/** Reads a Node request body, refusing more than `MAX_BODY_BYTES`. */
export const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
};

/**
 * The web-standard `Request` the SDK's transports take, for a Node request whose body has been
 * read. Its signal aborts when the client goes away, which ends streams and cancels handlers.
 */
export const toWebRequest = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
): Request => {
  const host = req.headers.host ?? 'localhost';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const controller = new AbortController();
  // Only a client that left before the answer was complete aborts: aborting after every
  // finished response cost a DOMException and an abort event per request on the hot path.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const method = req.method ?? 'GET';
  return new Request(`http://${host}${req.url ?? '/'}`, {
    method,
    headers,
    signal: controller.signal,
    ...(body !== undefined && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
  });
};

/** Writes a web `Response` (JSON or an SSE stream) to a Node response, streaming as it comes. */
export const sendWebResponse = async (res: ServerResponse, response: Response): Promise<void> => {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const cancel = (): void => {
    reader.cancel().catch(() => undefined);
  };
  res.once('close', cancel);
  if (headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
  try {
    for (;;) {
      const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
    }
  } catch {
    // The client went away mid-stream; nothing is left to tell it.
  } finally {
    res.off('close', cancel);
    res.end();
  }
};
