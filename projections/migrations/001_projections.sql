-- The projection runner's bookkeeping and the resource index shared by resource-backed read
-- models. Positions are stored as the opaque strings the event store hands out; their string
-- order is log order only under byte-wise comparison, hence COLLATE "C" on every position.
CREATE SCHEMA IF NOT EXISTS projections;

-- One row per projection and target schema (the live read model, or a shadow schema a replay
-- rebuilds into). A batch's rows and this row's new position commit in one transaction, and
-- the applier checks (under FOR UPDATE) that the row still holds the position it started from,
-- so an event is applied exactly once even if two appliers ever overlap.
CREATE TABLE projections.checkpoints (
  name           text NOT NULL,
  target_schema  text NOT NULL DEFAULT 'read_model',
  -- NULL: nothing applied yet; delivery starts at the beginning of the log.
  position       text COLLATE "C",
  events_applied bigint NOT NULL DEFAULT 0,
  -- Set when a handler failed on an event and the projection stopped (position, stream,
  -- revision, type, message); cleared by the next committed batch.
  error          jsonb,
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (target_schema, name)
);

CREATE SCHEMA IF NOT EXISTS read_model;

-- Every resource a read model serves over MCP (`cogitave://{type}/{id}`), written by the
-- projection that owns it in the same transaction as its own rows: resources/list pages
-- through it, resources/read checks content_hash, notifications name its URIs.
CREATE TABLE read_model.resources (
  uri           text COLLATE "C" PRIMARY KEY,
  type          text NOT NULL,
  -- The collection URI a client subscribes to for list changes, e.g. cogitave://request/.
  collection    text COLLATE "C" NOT NULL,
  product       text,
  title         text NOT NULL,
  -- sha256 (hex) of the resource's canonical JSON (RFC 8785).
  content_hash  text NOT NULL,
  last_modified timestamptz NOT NULL,
  -- The projection that owns the row (rebuilds and digests select by it).
  projection    text NOT NULL,
  -- Position of the last event that changed the resource.
  position      text COLLATE "C" NOT NULL
);

CREATE INDEX resources_type_uri ON read_model.resources (type, uri);
CREATE INDEX resources_product_uri ON read_model.resources (product, uri);
CREATE INDEX resources_projection ON read_model.resources (projection);
