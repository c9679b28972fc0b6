-- Runs once, by the postgres image's entrypoint, when the data volume is first initialised
-- (files in /docker-entrypoint-initdb.d/ are skipped when the volume already holds a cluster).
-- Creates Switchboard's own application database next to Temporal's `temporal` and
-- `temporal_visibility` databases; the `migrate` service then creates its tables.
-- Owner is the superuser from POSTGRES_USER, which is also the user in DATABASE_URL.
CREATE DATABASE switchboard;
