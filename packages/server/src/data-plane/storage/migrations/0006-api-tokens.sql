-- Scoped API tokens issued by `jobsight-server token create` carry a display prefix and a label.
-- Until this migration the server added both columns (and an index by prefix) from TypeScript
-- each time it started, so a database that ran that code has them already: hence IF [NOT]
-- EXISTS throughout. From here on the table is defined by the migrations only.
ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS prefix text;
ALTER TABLE api_tokens ADD COLUMN IF NOT EXISTS label text;

-- A token without a user (a collector's) is stored with an empty user name.
ALTER TABLE api_tokens ALTER COLUMN user_name SET DEFAULT '';

-- Tokens are looked up by their hash, the primary key; nothing looks them up by prefix.
DROP INDEX IF EXISTS api_tokens_by_prefix;
