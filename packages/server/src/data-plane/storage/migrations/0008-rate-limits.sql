-- Requests counted per rate-limit key (`t:<sha256 of the token>`, `ip:<address>`, `otlp:t:…`) and
-- fixed window, summed over every server replica on this database (`RateLimitStore`). UNLOGGED:
-- the counts live for two windows (seconds) and are cheap to lose, so they skip the WAL; after a
-- crash PostgreSQL empties the table and the replicas limit on their own counts for a window.
CREATE UNLOGGED TABLE IF NOT EXISTS rate_limit_counts (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  -- When the row stops mattering (the end of the window after its own); rows past it are deleted.
  expires_at timestamptz NOT NULL,
  hits bigint NOT NULL CHECK (hits >= 0),
  PRIMARY KEY (key, window_start)
);
