-- Which jobs ran on a node at a time, for the OTLP receiver: a node-wide reading (host.name only)
-- belongs to the job that had the node alone then (queries/jobs-on-nodes.ts). The node list lives
-- in the record; GIN answers `record -> 'nodes' ?| $nodes`, and the end time bounds the rows to
-- jobs still running or ended since the readings were taken.
CREATE INDEX jobs_by_node ON jobs USING gin ((record -> 'nodes'));
CREATE INDEX jobs_by_cluster_end ON jobs (cluster, ended_at) WHERE started_at IS NOT NULL;
