-- The seal of the global hash chain (see services/audit/log-chain.ts): one row per event, in
-- log order, written by the sealer once the event is final in the log. It names each sealed
-- event (position, stream, revision, id) so that `verify` can say which event is missing or
-- out of place, and it lets a digest be made without re-reading the whole log. The chain is
-- recomputed from the events by `verify`; a digest published outside the database is what
-- makes a rewritten seal noticeable.
CREATE SCHEMA IF NOT EXISTS audit;

CREATE TABLE audit.log_links (
  sequence        bigint PRIMARY KEY CHECK (sequence >= 0),
  position        text NOT NULL,
  stream_id       text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id        uuid NOT NULL,
  log_hash        text NOT NULL,
  sealed_at       timestamptz NOT NULL DEFAULT statement_timestamp()
);

-- Append-only: nothing in the product updates or deletes a link. Someone with the rights to
-- drop these triggers can still rewrite the table; the published digests catch that.
CREATE FUNCTION audit.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit.% is append-only', TG_TABLE_NAME;
END;
$$;
CREATE TRIGGER log_links_append_only BEFORE UPDATE OR DELETE ON audit.log_links
  FOR EACH STATEMENT EXECUTE FUNCTION audit.refuse_change();
CREATE TRIGGER log_links_no_truncate BEFORE TRUNCATE ON audit.log_links
  FOR EACH STATEMENT EXECUTE FUNCTION audit.refuse_change();

-- Every digest this deployment published, and where to: a convenience for operators and the
-- console (the authoritative copies are the published ones, outside the database).
CREATE TABLE audit.digests (
  events       bigint NOT NULL,
  made_at      timestamptz NOT NULL,
  digest       text NOT NULL,
  published_to text[] NOT NULL,
  PRIMARY KEY (events, made_at)
);

-- The outcome of each `verify` run, newest last.
CREATE TABLE audit.verifications (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  finished_at timestamptz NOT NULL,
  ok          boolean NOT NULL,
  report      jsonb NOT NULL
);
