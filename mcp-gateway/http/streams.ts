/**
 * Counting open SSE streams: a response whose body is an event stream calls `opened` now and
 * `closed` once, when the stream ends or the client goes away. Other responses pass unchanged.
 */
export interface StreamHooks {
  opened(): void;
  closed(): void;
}

export const isEventStream = (response: Response): boolean =>
  response.body !== null &&
  (response.headers.get('content-type') ?? '').startsWith('text/event-stream');

export const countStream = (response: Response, hooks: StreamHooks): Response => {
  const source = response.body;
  if (source === null || !isEventStream(response)) return response;
  const reader = source.getReader();
  let open = true;
  const finish = (): void => {
    if (!open) return;
    open = false;
    hooks.closed();
  };
  hooks.opened();
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      try {
        const next = await reader.read();
        if (next.done) {
          finish();
          controller.close();
        } else controller.enqueue(next.value as Uint8Array);
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel: async (reason) => {
      finish();
      await reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};
