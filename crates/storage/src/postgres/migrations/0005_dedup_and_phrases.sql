-- Duplicates inside a library and its boilerplate phrases, in the database (version 5), so that
-- every process serving the database sees the same clusters, alerts and phrases at once.
--
-- As everywhere, `library` leads every primary key, so that Citus can distribute the tables by
-- it (see the header of 0001_libraries.sql and DISTRIBUTED.md).

-- Numbers every write of the dedup state: the order of a log's lines, and the version of a
-- document, which together tell a process whether the clusters it holds are still current.
CREATE SEQUENCE dedup_writes;

-- A library's dedup documents, each one JSON value replaced whole: `checkpoint` (where a
-- running job stopped; there while a job is unfinished) and `clusters` (the last job's
-- clusters, kept current since).
CREATE TABLE dedup_documents (
    library  text   NOT NULL,
    name     text   NOT NULL,
    version  bigint NOT NULL DEFAULT nextval('dedup_writes'),
    doc      jsonb  NOT NULL,
    PRIMARY KEY (library, name)
);

-- A library's dedup logs, appended line by line: `edges` (what the job found; a checkpoint
-- names the last line it vouches for), `arrivals` (what documents arriving during a job found),
-- `changes` (cluster changes since `clusters` was written), `alerts` (arrivals with matches).
CREATE TABLE dedup_lines (
    library  text   NOT NULL,
    log      text   NOT NULL,
    seq      bigint NOT NULL DEFAULT nextval('dedup_writes'),
    line     jsonb  NOT NULL,
    PRIMARY KEY (library, log, seq)
);

-- Numbers the phrases of every library in the order they were added.
CREATE SEQUENCE phrase_additions;

-- A library's boilerplate phrases; `id` is a hash of the text.
CREATE TABLE phrases (
    library   text   NOT NULL,
    id        text   NOT NULL,
    text      text   NOT NULL,
    added     bigint NOT NULL,
    added_by  text   NOT NULL,
    position  bigint NOT NULL DEFAULT nextval('phrase_additions'),
    PRIMARY KEY (library, id)
);
