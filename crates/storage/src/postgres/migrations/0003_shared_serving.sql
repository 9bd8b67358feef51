-- Several `dupfinder serve` processes on one database (version 3).
--
-- The library registry moves into the database: each library's record (its name, start URL,
-- clarifications, crawl sources, creation and last write times) as one JSON document, read
-- afresh by every process at every request, so that a library created or changed through one
-- process is seen at once by the others. A library created by an earlier release has no record
-- until it is written again; the service then shows it with its id as its name.
ALTER TABLE libraries ADD COLUMN record jsonb;

-- An operator who aborts a re-index pauses its unfinished generation: the resume sweep of every
-- process leaves a paused generation alone until an operator asks for a re-index again. An
-- unfinished generation that is not paused and whose advisory lock is free was left by a
-- stopped or killed process, and any process resumes it.
ALTER TABLE generations ADD COLUMN paused boolean NOT NULL DEFAULT false;
