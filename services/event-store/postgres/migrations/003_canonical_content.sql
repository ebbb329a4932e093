-- Events keep the bytes their hash covers. Until now an event's data and metadata were jsonb,
-- and every reader had Postgres render them back to text (about half of its CPU when reading
-- the log) while `verify` re-encoded them in canonical form to hash them. Now each event stores
-- `content`: the RFC 8785 (JCS) text of { id, streamId, type, data, metadata }, exactly the
-- text whose sha256 is the contentHash in its chain link. Readers parse it; verify hashes it.
--
-- Existing events are converted here, in SQL, by an RFC 8785 encoder of their jsonb values
-- (dropped at the end): object keys sorted by UTF-16 code units, numbers written as
-- ECMAScript does, strings escaped as JSON.stringify does. For an
-- event stored intact that is the text its hash was computed from, so every chain still
-- holds; an event altered before the upgrade still fails `verify`, as it did.

DO $$
BEGIN
  IF current_setting('server_encoding') <> 'UTF8' THEN
    RAISE EXCEPTION 'the event store needs a UTF8 database (this one is %): events are stored as the UTF-8 text their hash covers', current_setting('server_encoding');
  END IF;
END;
$$;

-- Numbers as ECMAScript's Number.prototype.toString writes them (RFC 8785 section 3.2.2.3).
-- Every stored number was written by JSON.stringify (appends send JSON text made by it), so its
-- jsonb numeric holds exactly the shortest round-trip digits; only their placement differs
-- (numeric prints plain decimals, ECMAScript uses exponents below 1e-6 and from 1e21).
CREATE FUNCTION event_store.jcs_number(p_text text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  t text := p_text;
  neg boolean;
  at integer;
  int_part text;
  digits text;
  n integer;
  k integer;
BEGIN
  neg := left(t, 1) = '-';
  IF neg THEN
    t := substr(t, 2);
  END IF;
  at := strpos(t, '.');
  int_part := CASE WHEN at > 0 THEN left(t, at - 1) ELSE t END;
  digits := replace(t, '.', '');
  -- value = 0.<digits> × 10^n
  n := length(int_part);
  WHILE left(digits, 1) = '0' LOOP
    digits := substr(digits, 2);
    n := n - 1;
  END LOOP;
  digits := rtrim(digits, '0');
  k := length(digits);
  IF k = 0 THEN
    RETURN '0';
  ELSIF k <= n AND n <= 21 THEN
    t := digits || repeat('0', n - k);
  ELSIF 0 < n AND n <= 21 THEN
    t := left(digits, n) || '.' || substr(digits, n + 1);
  ELSIF -6 < n AND n <= 0 THEN
    t := '0.' || repeat('0', -n) || digits;
  ELSE
    t := left(digits, 1) || CASE WHEN k > 1 THEN '.' || substr(digits, 2) ELSE '' END
      || 'e' || CASE WHEN n - 1 >= 0 THEN '+' ELSE '-' END || abs(n - 1)::text;
  END IF;
  RETURN CASE WHEN neg THEN '-' || t ELSE t END;
END;
$$;

-- A key as UTF-16 code units: the sort order RFC 8785 prescribes. Byte order (COLLATE "C")
-- agrees with it unless a key holds characters from U+E000 up, so only those objects use this.
CREATE FUNCTION event_store.jcs_utf16(key text) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(array_agg(unit ORDER BY c.i, u.j), '{}')
    FROM regexp_split_to_table(key, '') WITH ORDINALITY AS c(ch, i)
   CROSS JOIN LATERAL (VALUES
       (1, CASE WHEN ascii(c.ch) >= 65536 THEN 55296 + ((ascii(c.ch) - 65536) >> 10) ELSE ascii(c.ch) END),
       (2, CASE WHEN ascii(c.ch) >= 65536 THEN 56320 + ((ascii(c.ch) - 65536) & 1023) END)
     ) AS u(j, unit)
   WHERE u.unit IS NOT NULL
$$;

CREATE FUNCTION event_store.jcs(v jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  out text;
BEGIN
  CASE jsonb_typeof(v)
    WHEN 'object' THEN
      IF EXISTS (SELECT 1 FROM jsonb_object_keys(v) AS k(key) WHERE k.key ~ '[\uE000-\U0010FFFF]') THEN
        SELECT string_agg(to_json(e.key)::text || ':' || event_store.jcs(e.value), ','
                          ORDER BY event_store.jcs_utf16(e.key))
          INTO out FROM jsonb_each(v) AS e;
      ELSE
        SELECT string_agg(to_json(e.key)::text || ':' || event_store.jcs(e.value), ','
                          ORDER BY e.key COLLATE "C")
          INTO out FROM jsonb_each(v) AS e;
      END IF;
      RETURN '{' || coalesce(out, '') || '}';
    WHEN 'array' THEN
      SELECT string_agg(event_store.jcs(a.value), ',' ORDER BY a.i)
        INTO out FROM jsonb_array_elements(v) WITH ORDINALITY AS a(value, i);
      RETURN '[' || coalesce(out, '') || ']';
    WHEN 'number' THEN
      out := v::text;
      -- Whole numbers of up to 15 digits are written the same either way.
      IF out ~ '^-?(0|[1-9][0-9]{0,14})$' THEN
        RETURN out;
      END IF;
      RETURN event_store.jcs_number(out);
    ELSE
      -- Strings (jsonb escapes exactly as JSON.stringify: \" \\ \b \f \n \r \t, \u00XX for
      -- other control characters, everything else literal), true, false, null.
      RETURN v::text;
  END CASE;
END;
$$;

-- The table is rebuilt rather than updated in place: every row changes, and a rewrite leaves
-- no dead copy of each row and no dropped columns behind.
ALTER TABLE event_store.events RENAME TO events_jsonb;
ALTER TABLE event_store.events_jsonb RENAME CONSTRAINT events_pkey TO events_jsonb_pkey;
ALTER TABLE event_store.events_jsonb RENAME CONSTRAINT events_stream_revision_key TO events_jsonb_stream_revision_key;
ALTER TABLE event_store.events_jsonb RENAME CONSTRAINT events_event_id_key TO events_jsonb_event_id_key;
DROP STATISTICS event_store.events_stream_bucket;

CREATE TABLE event_store.events (
  transaction_id  xid8 NOT NULL,
  position        bigint GENERATED ALWAYS AS IDENTITY,
  stream_revision bigint NOT NULL CHECK (stream_revision >= 0),
  event_id        uuid NOT NULL,
  -- The store's clock, for operators; the domain time is in the content's metadata.at.
  recorded_at     timestamptz NOT NULL DEFAULT statement_timestamp(),
  stream_id       text NOT NULL,
  event_type      text NOT NULL,
  prev_hash       text,
  hash            text NOT NULL,
  -- RFC 8785 JSON of { id, streamId, type, data, metadata }: the text the hash covers.
  content         text NOT NULL
);

INSERT INTO event_store.events
  (transaction_id, position, stream_revision, event_id, recorded_at, stream_id, event_type,
   prev_hash, hash, content)
OVERRIDING SYSTEM VALUE
SELECT transaction_id, position, stream_revision, event_id, recorded_at, stream_id, event_type,
       prev_hash, hash,
       event_store.jcs(jsonb_build_object(
         'id', event_id::text, 'streamId', stream_id, 'type', event_type,
         'data', data, 'metadata', metadata))
  FROM event_store.events_jsonb
 ORDER BY transaction_id, position;

SELECT setval(pg_get_serial_sequence('event_store.events', 'position'),
              coalesce((SELECT max(position) FROM event_store.events_jsonb), 0) + 1, false);

ALTER TABLE event_store.events
  ADD CONSTRAINT events_pkey PRIMARY KEY (transaction_id, position),
  ADD CONSTRAINT events_stream_revision_key UNIQUE (stream_id, stream_revision),
  ADD CONSTRAINT events_event_id_key UNIQUE (event_id);

CREATE STATISTICS event_store.events_stream_bucket ON ((hashtext(stream_id) & 63))
  FROM event_store.events;

DROP TABLE event_store.events_jsonb;
DROP FUNCTION event_store.jcs(jsonb);
DROP FUNCTION event_store.jcs_utf16(text);
DROP FUNCTION event_store.jcs_number(text);

-- The general append, as in 001 but storing `content`, whose sha256 it computes itself: the
-- store hashes exactly what it keeps. `p_events` is a JSON array of { id, type, content }.
DROP FUNCTION event_store.append_events(text, text, jsonb, boolean);
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
  v_content   text;
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
    v_content := v_event->>'content';
    v_current := v_current + 1;
    v_hash := encode(sha256(convert_to(
      coalesce(v_prev_hash, '') || ':' || v_current::text || ':'
        || encode(sha256(convert_to(v_content, 'UTF8')), 'hex'), 'UTF8')), 'hex');
    INSERT INTO event_store.events
      (transaction_id, stream_id, stream_revision, event_id, event_type, content, prev_hash, hash)
    VALUES (pg_current_xact_id(), p_stream_id, v_current, (v_event->>'id')::uuid, v_event->>'type',
      v_content, v_prev_hash, v_hash)
    RETURNING position INTO last_position;
    v_prev_hash := v_hash;
  END LOOP;

  outcome := 'appended';
  next_revision := v_current;
  transaction_id := pg_current_xact_id();
  last_hash := v_prev_hash;
END;
$$;
