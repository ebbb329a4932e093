-- Merges GitHub shows whose decision the log does not hold yet: the reactor saw the push of a
-- proposal's merge before (or without) the delivery of the merge itself. Kept until the
-- decision is recorded, so one whose delivery never comes is reported (status, /readyz,
-- metrics) rather than waited on in silence.
CREATE TABLE github_reactor.undecided_merges (
  reactor     text NOT NULL,
  proposal_id text NOT NULL,
  request_id  text NOT NULL,
  pull_number integer NOT NULL,
  commit_sha  text NOT NULL,
  seen_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (reactor, proposal_id)
);
