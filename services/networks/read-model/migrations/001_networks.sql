-- The Networks read model: one row per network (its summary), per node and per edge.
-- Written only by the `networks` projection; rebuilt from the log.
CREATE TABLE read_model.networks (
  name          text COLLATE "C" PRIMARY KEY,
  uri           text COLLATE "C" NOT NULL UNIQUE,
  description   text,
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  node_count    integer NOT NULL,
  edge_count    integer NOT NULL,
  -- Stream revision of the last applied event (0-based).
  version       bigint NOT NULL,
  last_position text COLLATE "C" NOT NULL
);

CREATE TABLE read_model.network_nodes (
  network    text COLLATE "C" NOT NULL,
  node_id    text COLLATE "C" NOT NULL,
  -- 0-based, in the order nodes were added to the network.
  ordinal    integer NOT NULL,
  data       jsonb,
  attributes jsonb NOT NULL,
  added_by   text NOT NULL,
  added_at   timestamptz NOT NULL,
  PRIMARY KEY (network, node_id),
  UNIQUE (network, ordinal)
);

CREATE TABLE read_model.network_edges (
  network    text COLLATE "C" NOT NULL,
  -- 1-based, in the order edges were added; identical edges differ only by it.
  edge_id    integer NOT NULL,
  source     text COLLATE "C" NOT NULL,
  target     text COLLATE "C" NOT NULL,
  weight     double precision NOT NULL,
  attributes jsonb NOT NULL,
  added_by   text NOT NULL,
  added_at   timestamptz NOT NULL,
  PRIMARY KEY (network, edge_id)
);

-- Neighbour lookups in both directions, each covering the other end and the edge order.
CREATE INDEX network_edges_outbound ON read_model.network_edges (network, source, edge_id, target);
CREATE INDEX network_edges_inbound ON read_model.network_edges (network, target, edge_id, source);
