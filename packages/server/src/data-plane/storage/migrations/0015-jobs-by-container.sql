-- Which job's pod ran a container, for the OTLP receiver: a container's reading that names only its
-- `container.id` belongs to the job whose record lists that id (queries/jobs-by-container.ts).
-- Jobsight's Kubernetes collector writes the ids into the record (`containerIds`); GIN answers
-- `record -> 'containerIds' ?| $ids`.
CREATE INDEX jobs_by_container ON jobs USING gin ((record -> 'containerIds'));
