-- The prediction log's documents are kept as text: the server writes them (JSON.stringify of
-- what it answered) and reads them back only by id, for the accuracy report or for a policy
-- simulation, where the query casts them to json. Checking each document's syntax as json on
-- every COPY was a fifth of the database's work of recording a batch (measured on rows of
-- 2.3 KB: 48 µs of CPU per row as json, 38 as text), and the log is written for every prediction.
ALTER TABLE predictions
  ALTER COLUMN spec TYPE text,
  ALTER COLUMN resources TYPE text,
  ALTER COLUMN recommendations TYPE text;

-- Predictions are appended in the order they are made, so a block range index finds a period's
-- rows as well as a B-tree for the readers (the accuracy report and policy simulation read whole
-- periods, the heartbeat counts a day) at a fraction of the cost of keeping it: the B-tree was
-- about a tenth of the database's work per recorded prediction.
DROP INDEX predictions_by_created;
CREATE INDEX predictions_by_created ON predictions USING brin (created_at);

-- The accuracy report pairs predictions with jobs in memory (link-predictions.ts) after reading
-- a period by created_at: no query looks predictions up by link key, and keeping that B-tree was
-- another tenth of the work of recording one.
DROP INDEX predictions_by_link;

-- A prediction's row is a couple of kilobytes, often just over the size at which PostgreSQL
-- compresses a row's largest values (about 2 KB): compressing them with pglz was the largest
-- single cost of recording (a fifth of the database's CPU time), to save a kilobyte of disk per
-- prediction. Rows are compressed only beyond 8 KB now.
ALTER TABLE predictions SET (toast_tuple_target = 8160);
