-- Sources, site paths and sections (issue: real documentation sites).
-- A node belongs to the source (an ingested folder) whose ingest wrote it; pages carry their
-- site path, the page they are across versions, and their headings (section anchors and where
-- each starts in the body). Nodes from before sources have NULL there.
ALTER TABLE read_model.catalog_nodes
  ADD COLUMN source   text,
  ADD COLUMN path     text COLLATE "C",
  ADD COLUMN page     text COLLATE "C",
  ADD COLUMN sections jsonb;

CREATE INDEX catalog_nodes_source ON read_model.catalog_nodes (source, uid);
CREATE INDEX catalog_nodes_path ON read_model.catalog_nodes (path);
CREATE INDEX catalog_nodes_page ON read_model.catalog_nodes (page, uid);

-- The section of the target a link points at (`#anchor`), when it names one.
ALTER TABLE read_model.catalog_edges ADD COLUMN anchor text;

-- One row per source that has been ingested and not removed: its folder, generator, site URL
-- and versions as of its last ingest.
CREATE TABLE read_model.catalog_sources (
  name             text COLLATE "C" PRIMARY KEY,
  root             text NOT NULL,
  generator        text NOT NULL,
  base_url         text,
  versions         text[] NOT NULL DEFAULT '{}',
  latest           text[] NOT NULL DEFAULT '{}',
  nodes            integer NOT NULL,
  pages            integer NOT NULL,
  last_ingested_at timestamptz NOT NULL,
  position         text COLLATE "C" NOT NULL
);
