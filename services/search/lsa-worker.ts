import { parentPort } from 'node:worker_threads';
import { createAnalyzer } from './analyzer.js';
import { fitAndEmbed, type FitSettings } from './lsa-model.js';

/**
 * Worker-thread entry of the LSA fit (lsa.ts starts one per fit): it analyzes the corpus,
 * fits the model, embeds every document, and posts the model and the vectors back, transferring the large buffers instead of copying them. The same
 * functions run in-process when no worker can be started, so a given corpus and seed give the
 * same vectors either way.
 */
export interface FitRequest {
  readonly documents: readonly string[];
  readonly settings: FitSettings;
  readonly learnFrom?: readonly boolean[] | undefined;
}

const port = parentPort;
if (!port) throw new Error('lsa-worker runs as a worker thread');
const analyze = createAnalyzer();
port.on('message', (request: FitRequest) => {
  const result = fitAndEmbed(request.documents.map(analyze), request.settings, request.learnFrom);
  const transfer: ArrayBuffer[] = [result.vectors.buffer as ArrayBuffer];
  if (result.model) {
    transfer.push(
      result.model.idf.buffer as ArrayBuffer,
      result.model.termBasis.buffer as ArrayBuffer,
      result.model.rotation.buffer as ArrayBuffer,
    );
  }
  port.postMessage(result, transfer);
});
