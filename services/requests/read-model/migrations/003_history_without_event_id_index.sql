-- History rows no longer keep a unique index on event_id. The primary key (the global position)
-- already refuses an event applied twice, the event store keeps event ids unique, and nothing
-- looks a history row up by event id: the index was only upkeep, on every apply and as a
-- third sort of a million-row table in each rebuild.
ALTER TABLE read_model.request_history DROP CONSTRAINT request_history_event_id_key;
