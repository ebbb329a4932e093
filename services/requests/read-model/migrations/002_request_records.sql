-- Each row now stores the whole request record (services/requests/fold.ts, the one fold of a
-- request's events that the decider, GitHub and time travel share), its proposals included.
-- Rows written before have no proposals to give, so the read model is emptied and its
-- checkpoint removed: the projection folds the log again from the start.
ALTER TABLE read_model.requests ADD COLUMN proposals jsonb NOT NULL DEFAULT '[]';
ALTER TABLE read_model.requests ALTER COLUMN proposals DROP DEFAULT;
DELETE FROM read_model.request_history;
DELETE FROM read_model.requests;
DELETE FROM read_model.resources WHERE type = 'request';
DELETE FROM projections.checkpoints WHERE target_schema = 'read_model' AND name = 'requests';
