-- The admin role (everything the platform role may do, plus issuing and revoking API tokens,
-- removing clusters and promoting or rolling back models) may be issued as an API token through
-- `POST /v1/tokens`. The role check of 0001 named the four roles before it.
ALTER TABLE api_tokens DROP CONSTRAINT IF EXISTS api_tokens_role_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check
  CHECK (role IN ('researcher', 'platform', 'admin', 'collector', 'scheduler'));
