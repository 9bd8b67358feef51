-- Which of a document's shingles a library indexes in `shingles` (version 8), as
-- `ShingleSelection::marker` names it: libraries created before winnowing keep the sample they
-- were written with ("mod 4"); a library created from now on winnows ("winnow 8"), and the
-- service names its selection when it creates it. A library keeps its selection for its life.
ALTER TABLE libraries ADD COLUMN shingles text NOT NULL DEFAULT 'mod 4';
ALTER TABLE libraries ALTER COLUMN shingles SET DEFAULT 'winnow 8';
