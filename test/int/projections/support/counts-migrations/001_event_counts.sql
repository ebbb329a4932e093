-- A second projection for the tests: events per type, to show one projection's failure does
-- not stop another.
CREATE TABLE read_model.test_event_counts (
  type text PRIMARY KEY,
  n    bigint NOT NULL
);
