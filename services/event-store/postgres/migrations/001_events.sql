-- The event log. `position` is a sequence value and sequence values commit out of order, so
-- readers of the global log order by (transaction_id, position) and only read rows whose
-- transaction is older than every transaction still running (see queries.ts). That pair is
-- also the primary key, so the global read order costs no extra index.
CREATE SCHEMA IF NOT EXISTS event_store;

CREATE TABLE event_store.events (
  transaction_id  xid8 NOT NULL,
  position        bigint GENERATED ALWAYS AS IDENTITY,
  stream_id       text NOT NULL,
  stream_revision bigint NOT NULL CHECK (stream_revision >= 0),
  event_id        uuid NOT NULL,
  event_type      text NOT NULL,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL,
  prev_hash       text,
  hash            text NOT NULL,
  -- The store's clock, for operators; the domain time is metadata.at.
  recorded_at     timestamptz NOT NULL DEFAULT statement_timestamp(),
  CONSTRAINT events_pkey PRIMARY KEY (transaction_id, position),
  CONSTRAINT events_stream_revision_key UNIQUE (stream_id, stream_revision),
  CONSTRAINT events_event_id_key UNIQUE (event_id)
);

-- The cold path of an append whose first event id is already stored: a retry of the same
-- append (idempotent success) or a reused id (a conflict). In order means every id is stored
-- in this stream at (first revision + its index).
CREATE FUNCTION event_store.classify_replay(p_stream_id text, p_expected text, p_events jsonb, p_current bigint)
RETURNS TABLE (
  outcome text, next_revision bigint, transaction_id xid8, last_position bigint,
  actual_revision bigint, conflict_stream text, conflict_event uuid
) LANGUAGE plpgsql AS $$
DECLARE
  v_count integer := jsonb_array_length(p_events);
  v_found record;
BEGIN
  SELECT count(*) AS n,
         bool_and(e.stream_id = p_stream_id) AS same_stream,
         min(e.stream_revision - ids.ord) AS min_offset,
         max(e.stream_revision - ids.ord) AS max_offset,
         coalesce(min(e.stream_id) FILTER (WHERE e.stream_id <> p_stream_id), p_stream_id) AS other_stream,
         (array_agg(e.event_id ORDER BY ids.ord))[1] AS first_found
    INTO v_found
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS ids(event, ord)
    JOIN event_store.events e ON e.event_id = (ids.event->>'id')::uuid;
  IF NOT (v_found.n = v_count AND v_found.same_stream AND v_found.min_offset = v_found.max_offset) THEN
    RETURN QUERY SELECT 'duplicate_event_id', NULL::bigint, NULL::xid8, NULL::bigint, NULL::bigint,
      v_found.other_stream, v_found.first_found;
    RETURN;
  END IF;
  -- The batch was stored at first revision = min_offset + 1.
  IF (p_expected = 'no_stream' AND v_found.min_offset <> -1)
     OR (p_expected NOT IN ('any', 'no_stream', 'stream_exists') AND v_found.min_offset <> p_expected::bigint) THEN
    RETURN QUERY SELECT 'wrong_expected_version', NULL::bigint, NULL::xid8, NULL::bigint,
      NULLIF(p_current, -1), NULL::text, NULL::uuid;
    RETURN;
  END IF;
  RETURN QUERY SELECT 'idempotent', e.stream_revision, e.transaction_id, e.position,
      NULL::bigint, NULL::text, NULL::uuid
    FROM event_store.events e WHERE e.event_id = (p_events->(v_count - 1)->>'id')::uuid;
END;
$$;

-- Appends a batch to one stream. `p_events` is a JSON array of
-- { id, type, data, metadata, contentHash }. Writers of the same stream serialise on a
-- transaction-scoped advisory lock (no row is written to take it), so revisions are gap-free
-- and the hash chain stays continuous even when many writers append with 'any'.
-- This is the general path: the adapter's fast path (a plain INSERT of rows whose chain it
-- computed from a head it already knows) falls back here whenever that head is unknown or stale.
-- Outcomes are returned, not raised, so a caller's enclosing transaction stays usable; an id
-- reused beyond the first event surfaces as a unique violation on events_event_id_key.
CREATE FUNCTION event_store.append_events(
  p_stream_id text, p_expected text, p_events jsonb, p_take_lock boolean DEFAULT true,
  OUT outcome text, OUT next_revision bigint, OUT transaction_id xid8, OUT last_position bigint,
  OUT actual_revision bigint, OUT conflict_stream text, OUT conflict_event uuid, OUT last_hash text
) LANGUAGE plpgsql AS $$
DECLARE
  v_current   bigint;
  v_prev_hash text;
  v_hash      text;
  v_event     jsonb;
BEGIN
  IF p_take_lock THEN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_stream_id, 0));
  END IF;

  SELECT e.stream_revision, e.hash INTO v_current, v_prev_hash
    FROM event_store.events e
   WHERE e.stream_id = p_stream_id
   ORDER BY e.stream_revision DESC
   LIMIT 1;
  IF NOT FOUND THEN
    v_current := -1;
  END IF;

  IF EXISTS (SELECT 1 FROM event_store.events e WHERE e.event_id = (p_events->0->>'id')::uuid) THEN
    SELECT r.* INTO outcome, next_revision, transaction_id, last_position, actual_revision,
                    conflict_stream, conflict_event
      FROM event_store.classify_replay(p_stream_id, p_expected, p_events, v_current) r;
    RETURN;
  END IF;

  IF (p_expected = 'no_stream' AND v_current <> -1)
     OR (p_expected = 'stream_exists' AND v_current = -1)
     OR (p_expected NOT IN ('any', 'no_stream', 'stream_exists') AND v_current <> p_expected::bigint) THEN
    outcome := 'wrong_expected_version';
    actual_revision := NULLIF(v_current, -1);
    RETURN;
  END IF;

  FOR i IN 0 .. jsonb_array_length(p_events) - 1 LOOP
    v_event := p_events->i;
    v_current := v_current + 1;
    v_hash := encode(sha256(convert_to(
      coalesce(v_prev_hash, '') || ':' || v_current::text || ':' || (v_event->>'contentHash'), 'UTF8')), 'hex');
    INSERT INTO event_store.events
      (transaction_id, stream_id, stream_revision, event_id, event_type, data, metadata, prev_hash, hash)
    VALUES (pg_current_xact_id(), p_stream_id, v_current, (v_event->>'id')::uuid, v_event->>'type',
      v_event->'data', v_event->'metadata', v_prev_hash, v_hash)
    RETURNING position INTO last_position;
    v_prev_hash := v_hash;
  END LOOP;

  outcome := 'appended';
  next_revision := v_current;
  transaction_id := pg_current_xact_id();
  last_hash := v_prev_hash;
END;
$$;
