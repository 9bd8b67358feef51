-- Full-text search of a library's documents (version 4).
--
-- `search` holds the service's own analyzer tokens of a document, not PostgreSQL's
-- to_tsvector('russian' | 'english'): the analyzer folds homoglyphs, `ё` and ligatures and picks a
-- stemmer per word, so a search finds on PostgreSQL what it finds on tantivy. The title's tokens
-- carry weight A, the authors' weight B and the text's weight D, each part at positions of its
-- own, so that `title:` and `author:` restrict a query to their weight and a phrase never runs
-- from one part into the next. A document written before this version has no vector and is found
-- by search once it is written again.
--
-- btree_gin lets `library` lead the GIN index, as it leads every index of the schema (Citus
-- distributes by it, and a search names one library). It is a trusted extension: the owner of
-- the database may create it.
CREATE EXTENSION IF NOT EXISTS btree_gin;

ALTER TABLE documents ADD COLUMN search tsvector;
CREATE INDEX documents_search ON documents USING gin (library, search);
