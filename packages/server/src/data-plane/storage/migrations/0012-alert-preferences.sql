-- How live alerts and the weekly digest reach each user (`AlertPreferenceStore`): one row per user
-- who set their own; a user without a row has the site's defaults. Users are named as in job
-- records (`jobs.user_name`), site-wide: the same name on two clusters is one person.
CREATE TABLE IF NOT EXISTS alert_preferences (
  user_name text PRIMARY KEY,
  enabled boolean NOT NULL,
  channels text[] NOT NULL CHECK (channels <@ ARRAY['email', 'webhook']::text[]),
  quiet_start text CHECK (quiet_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  quiet_end text CHECK (quiet_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone text,
  digest boolean NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((quiet_start IS NULL) = (quiet_end IS NULL) AND (quiet_start IS NULL) = (time_zone IS NULL))
);

-- The weekly digests sent: one row per user and week (the Monday 00:00 UTC it began), so a digest
-- goes out once even across restarts and replicas.
CREATE TABLE IF NOT EXISTS alert_digests (
  user_name text NOT NULL,
  week_start timestamptz NOT NULL,
  sent_at timestamptz NOT NULL,
  PRIMARY KEY (user_name, week_start)
);
