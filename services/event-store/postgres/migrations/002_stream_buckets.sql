-- Stream partitions (EventFilter.partition) are sets of 64 hash buckets of the stream id,
-- `hashtext(stream_id) & 63`. Statistics on that expression let the planner know how many
-- events a set of buckets holds: without them it guesses 0.5 % for any condition on an
-- expression and reads a partition's page by scanning and sorting the whole log instead of
-- walking the primary key (seconds per page instead of milliseconds).
CREATE STATISTICS event_store.events_stream_bucket ON ((hashtext(stream_id) & 63))
  FROM event_store.events;
