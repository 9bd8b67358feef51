-- What the service keeps besides the libraries (version 6): keys and the audit log, reports
-- with their decisions, batches with their files and lines, webhook subscriptions with their
-- outbox, so that every process serving the database answers for them alike (DISTRIBUTED.md,
-- "Several service processes on one database"). JSON values are kept as text: the service
-- reads and writes them whole.
--
-- None of these rows belongs to one library (a key, a report, a batch may name several), so
-- none is keyed by library: the small tables read on every request or every announcement
-- (`api_keys`, `webhooks`) are reference tables under Citus, the large ones are keyed by their
-- own id (`reports` by `report_id`, the batch tables by `job`, colocated), and the two logs
-- appended in order (`audit_log`, `webhook_deliveries`) stay tables of the coordinator.

-- A key: its name, the SHA-256 of its secret (hex), and what it may do (JSON `KeyInfo`).
CREATE TABLE api_keys (
    name  text PRIMARY KEY,
    hash  text NOT NULL UNIQUE,
    info  text NOT NULL
);

-- Every write the API answered, in order (JSON `AuditEntry`, its `seq` this row's).
CREATE TABLE audit_log (
    seq    bigserial PRIMARY KEY,
    entry  text NOT NULL
);

-- A report: its place in the list (`ord`, nanoseconds, the list's and retention's order), its
-- list line (JSON `ReportSummary`) and the report itself (deflate-compressed JSON).
CREATE TABLE reports (
    report_id  text   PRIMARY KEY,
    ord        bigint NOT NULL,
    summary    text   NOT NULL,
    body       bytea  NOT NULL
);
CREATE INDEX reports_by_ord ON reports (ord);

-- A batch (JSON `BatchRecord`), its state also as a column for the sweep that looks for the
-- unfinished ones.
CREATE TABLE batches (
    job     text PRIMARY KEY,
    state   text NOT NULL,
    record  text NOT NULL
);
CREATE INDEX batches_running ON batches (state) WHERE state = 'running';

-- The bytes of a batch's file not yet checked, and until when (milliseconds since the epoch)
-- the process that claimed it holds it: another may take it once the lease has passed.
CREATE TABLE batch_files (
    job          text    NOT NULL,
    number       integer NOT NULL,
    bytes        bytea   NOT NULL,
    lease_until  bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (job, number)
);

-- The summary line of a batch's file checked (JSON `BatchItem`).
CREATE TABLE batch_items (
    job     text    NOT NULL,
    number  integer NOT NULL,
    item    text    NOT NULL,
    PRIMARY KEY (job, number)
);

-- A webhook with its secret (JSON).
CREATE TABLE webhooks (
    id       text   PRIMARY KEY,
    created  bigint NOT NULL,
    stored   text   NOT NULL
);

-- One event's delivery to one webhook (JSON `Delivery`, its body kept while pending): the
-- delivery log, and the outbox as the rows with a `next_at` (milliseconds since the epoch).
-- A process sending one holds it until `lease_until`: claimed `FOR UPDATE SKIP LOCKED`, so
-- that two processes never send the same delivery at once.
CREATE TABLE webhook_deliveries (
    key          text   PRIMARY KEY,
    webhook      text   NOT NULL,
    next_at      bigint,
    lease_until  bigint NOT NULL DEFAULT 0,
    delivery     text   NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_at) WHERE next_at IS NOT NULL;
CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook, key);
