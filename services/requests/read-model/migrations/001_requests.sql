-- The Request read model: one row per request (its current state) and one row per request
-- event (its history). Written only by the `requests` projection; rebuilt from the log.
CREATE TABLE read_model.requests (
  request_id          text COLLATE "C" PRIMARY KEY,
  uri                 text COLLATE "C" NOT NULL UNIQUE,
  title               text NOT NULL,
  problem             text NOT NULL,
  product             text NOT NULL,
  requester           text NOT NULL,
  priority            text NOT NULL,
  acceptance_criteria jsonb NOT NULL,
  links               jsonb NOT NULL,
  stage               text NOT NULL,
  -- draft while in `proposed`, closed in a terminal stage, active otherwise.
  status              text NOT NULL CHECK (status IN ('draft', 'active', 'closed')),
  -- The stage a `deferred` request resumes to.
  resume_stage        text,
  -- The open stage proposal, if any (at most one: the lifecycle refuses a second).
  pending_proposal_id text,
  pending_from_stage  text,
  pending_to_stage    text,
  pending_proposed_by text,
  pending_proposed_at timestamptz,
  pending_rationale   text,
  pending_evidence    jsonb,
  pending_pr_number   integer,
  pending_pr_url      text,
  -- Evidence of the approved proposals merged in order (lifecycle's mergeEvidence, as the
  -- decider folds it): what the Definition of Done is checked against.
  evidence            jsonb NOT NULL,
  intake_repository   text,
  intake_issue_number integer,
  intake_issue_url    text,
  proposed_by         text NOT NULL,
  -- Why a request was closed by rejection or withdrawal.
  closed_reason       text,
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  -- Stream revision of the last applied event (0-based).
  version             bigint NOT NULL,
  last_position       text COLLATE "C" NOT NULL
);

CREATE INDEX requests_stage ON read_model.requests (stage, request_id);
CREATE INDEX requests_status ON read_model.requests (status, request_id);
CREATE INDEX requests_product ON read_model.requests (product, request_id);

CREATE TABLE read_model.request_history (
  -- The global position: an event applied twice would collide here.
  position        text COLLATE "C" PRIMARY KEY,
  request_id      text COLLATE "C" NOT NULL,
  stream_revision bigint NOT NULL,
  event_id        uuid NOT NULL UNIQUE,
  type            text NOT NULL,
  actor           text NOT NULL,
  at              timestamptz NOT NULL,
  hash            text NOT NULL,
  prev_hash       text,
  summary         text NOT NULL,
  UNIQUE (request_id, stream_revision)
);
