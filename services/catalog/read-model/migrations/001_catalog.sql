-- The catalog read model: one row per current (not retired) node and one per typed edge.
-- Written by the catalog projection from NodePublished / NodeRevised / NodeRetired; read by
-- docs_fetch, get_related, get_learning_path, resolve_xref, the search index (rebuilt from
-- here at start-up) and query_graph (which compiles to SQL over these two tables).
CREATE TABLE read_model.catalog_nodes (
  uid           text COLLATE "C" PRIMARY KEY,
  -- A label of the closed vocabulary (services/catalog/vocabulary.ts).
  label         text NOT NULL,
  title         text NOT NULL,
  summary       text NOT NULL DEFAULT '',
  -- Canonical content: Markdown for documents, the code for a CodeSample.
  body          text NOT NULL DEFAULT '',
  product       text,
  -- Doc versions this node belongs to; always at least one ('latest' by default).
  monikers      text[] NOT NULL DEFAULT ARRAY['latest'],
  -- Label-specific attributes (durationInMinutes, status, language, compiled, sourceUid, ...).
  attributes    jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Path of the corpus file it came from (relative to the corpus root).
  source_path   text,
  -- sha256 (hex) of the node's canonical content, as carried by its last event.
  content_hash  text NOT NULL,
  last_modified timestamptz NOT NULL,
  -- Revision of the node's stream and position of its last event.
  revision      bigint NOT NULL,
  position      text COLLATE "C" NOT NULL
);

CREATE INDEX catalog_nodes_label ON read_model.catalog_nodes (label, uid);
CREATE INDEX catalog_nodes_product ON read_model.catalog_nodes (product, uid);

-- Outbound edges are part of their source node's events: a revision replaces them all, a
-- retirement removes them. A target may be absent (retired later); readers join to nodes.
CREATE TABLE read_model.catalog_edges (
  source_uid text COLLATE "C" NOT NULL,
  edge_type  text NOT NULL,
  target_uid text COLLATE "C" NOT NULL,
  -- Order among the source's edges of one type (units of a module keep their order).
  ordinal    integer NOT NULL DEFAULT 0,
  -- 'frontMatter' (declared) or 'text' (an @uid / <xref:uid> link in the body).
  origin     text NOT NULL,
  PRIMARY KEY (source_uid, edge_type, target_uid)
);

CREATE INDEX catalog_edges_target ON read_model.catalog_edges (target_uid, edge_type, source_uid);
