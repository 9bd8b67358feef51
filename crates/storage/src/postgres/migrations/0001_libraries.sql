-- dupfinder's PostgreSQL schema, version 1.
--
-- Every table carries `library`, and `library` leads every primary key, unique key and index,
-- so that Citus can distribute the tables by it (create_distributed_table(..., 'library')) and
-- every statement the service sends names one library, which routes it to one shard. The small
-- tables `libraries` and `generations` are reference tables (copied to every node). See
-- DISTRIBUTED.md.
--
-- Keys, hashes and signatures are unsigned 64-bit in the service; they are stored bit for bit
-- as bigint (the same 64 bits read as signed), which only changes their sort order.

CREATE TABLE libraries (
    library     text   NOT NULL PRIMARY KEY,
    created_at  bigint NOT NULL,
    -- The generation checks read; switched in one transaction by a re-index.
    generation  bigint NOT NULL DEFAULT 0
);

CREATE TABLE generations (
    library     text   NOT NULL,
    generation  bigint NOT NULL,
    -- building: being signed, never read by a check; live: the one `libraries` names;
    -- retired: replaced (its rows are dropped after the switch).
    state       text   NOT NULL CHECK (state IN ('building', 'live', 'retired')),
    -- N: live documents when the statistics were counted.
    docs        bigint NOT NULL,
    -- The last document change the statistics saw: documents changed after it are signed
    -- again at the switch.
    mark        bigint NOT NULL,
    PRIMARY KEY (library, generation)
);

-- Every write of a document takes the next number: what a re-index catches up from.
CREATE SEQUENCE document_changes;

CREATE TABLE documents (
    library       text     NOT NULL,
    doc_key       bigint   NOT NULL,
    doc_id        text     NOT NULL,
    url           text,
    title         text,
    authors       text[]   NOT NULL,
    lang          text     NOT NULL,
    year          bigint,
    words         bigint   NOT NULL,
    -- Analyzed tokens (the sum of `tfs`).
    tokens        bigint   NOT NULL,
    content_hash  bigint   NOT NULL,
    added_at      bigint   NOT NULL,
    change        bigint   NOT NULL DEFAULT nextval('document_changes'),
    text          text     NOT NULL,
    -- Each distinct term once, sorted, with its count: what statistics are counted from and
    -- what a re-index signs, without analyzing the text again.
    terms         text[]   NOT NULL,
    tfs           integer[] NOT NULL,
    -- Every shingle in text order, little-endian u64s (verification reads it whole).
    shingle_seq   bytea    NOT NULL,
    PRIMARY KEY (library, doc_key)
);
CREATE INDEX documents_content_hash ON documents (library, content_hash);
CREATE INDEX documents_change ON documents (library, change);
CREATE INDEX documents_added_at ON documents (library, added_at);

-- Statistics snapshots: df and cf of every term per generation.
CREATE TABLE term_stats (
    library     text   NOT NULL,
    generation  bigint NOT NULL,
    term        text   NOT NULL,
    df          bigint NOT NULL,
    cf          bigint NOT NULL,
    PRIMARY KEY (library, generation, term)
);

-- The seed signature (a CRC32) of each document per generation.
CREATE TABLE signatures (
    library     text   NOT NULL,
    generation  bigint NOT NULL,
    doc_key     bigint NOT NULL,
    seed        bigint,
    PRIMARY KEY (library, generation, doc_key)
);
CREATE INDEX signatures_seed ON signatures (library, generation, seed);

-- The robust signatures, one row each: a lookup is one btree range scan.
CREATE TABLE robust_signatures (
    library     text   NOT NULL,
    generation  bigint NOT NULL,
    signature   bigint NOT NULL,
    doc_key     bigint NOT NULL,
    PRIMARY KEY (library, generation, signature, doc_key)
);
CREATE INDEX robust_signatures_doc ON robust_signatures (library, generation, doc_key);

-- The sampled shingles of each live document ("0 mod 4"), one row each.
CREATE TABLE shingles (
    library     text   NOT NULL,
    shingle     bigint NOT NULL,
    doc_key     bigint NOT NULL,
    PRIMARY KEY (library, shingle, doc_key)
);
CREATE INDEX shingles_doc ON shingles (library, doc_key);
