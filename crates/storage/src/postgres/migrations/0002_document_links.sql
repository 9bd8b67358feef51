-- Where a document's full text can be read and its DOI (normalized, 10.xxxx/...). Documents
-- stored before this migration have neither.
ALTER TABLE documents ADD COLUMN pdf_url text, ADD COLUMN doi text;
