import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A refusal a route (or the edge) answers with an RFC 9457 problem: the status, a message a
 * person or a model can act on, and headers such as `Allow` or `Retry-After`.
 */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export const bodyTooLarge = (limit: number): HttpRefusal =>
  new HttpRefusal(
    413,
    `The request body is larger than this route accepts (${String(limit)} bytes).`,
    // The rest of an oversized body is not read; the connection cannot be reused.
    { connection: 'close' },
  );

/** The declared `Content-Length`, or undefined when absent or not a number. */
export const declaredLength = (req: IncomingMessage): number | undefined => {
  const header = req.headers['content-length'];
  if (header === undefined || !/^\d{1,15}$/.test(header)) return undefined;
  return Number(header);
};

/**
 * Reads a Node request body, refusing more than `limit` bytes (413) before buffering them: a
 * declared `Content-Length` over the limit is refused without reading anything.
 */
export const readBody = async (req: IncomingMessage, limit: number): Promise<Buffer> => {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) throw bodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw bodyTooLarge(limit);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
};

/**
 * The web-standard `Request` the SDK's transports take, for a Node request whose body has been
 * read. Its URL is the request's path on `origin` (the server's own, never the client's `Host`
 * header). Its signal aborts when the client goes away, which ends streams and cancels
 * handlers.
 */
export const toWebRequest = (
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
  origin: string,
): Request => {
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
  return new Request(`${origin}${req.url ?? '/'}`, {
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
