import { createRequestCommandHandlers } from '../services/requests/handlers.js';
import type { App } from '../services/runtime/app.js';
import type { GatewayServices } from './services.js';

export interface ComposedGatewayServices {
  readonly services: GatewayServices;
  /** Stops what the services started (index followers, listeners); the App closes the rest. */
  close(): Promise<void>;
}

/**
 * Builds the services the gateway's tools and resources run on, from the process's App. Each
 * capability adds its service here (and its field to `GatewayServices`).
 */
export const createGatewayServices = async (app: App): Promise<ComposedGatewayServices> => {
  const closers: (() => Promise<void>)[] = [];
  const services: GatewayServices = {
    database: app.database,
    eventStore: app.eventStore,
    changes: app.changes,
    requests: createRequestCommandHandlers({ eventStore: app.eventStore }),
  };
  await Promise.resolve();
  return {
    services,
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
};
