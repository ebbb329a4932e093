-- The GitHub reactor's own state: where it is in the global log, and the events it could not
-- handle (logged, skipped, kept here for operators). Positions are the event store's opaque
-- strings; their string order is log order.
CREATE SCHEMA IF NOT EXISTS github_reactor;

CREATE TABLE github_reactor.checkpoints (
  reactor    text PRIMARY KEY,
  position   text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE github_reactor.failures (
  reactor    text NOT NULL,
  event_id   uuid NOT NULL,
  position   text NOT NULL,
  stream_id  text NOT NULL,
  event_type text NOT NULL,
  error      text NOT NULL,
  failed_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reactor, event_id)
);
