-- Every server replica serves the active model and the policy from memory. When either changes
-- (a promotion, a rollback, a training, a recalibration, a new policy; from any replica or the
-- CLI), the committing transaction notifies `jobsight_changes` with the table's name, and each
-- replica's `ChangeListener` reloads it at once instead of at its next refresh.
CREATE OR REPLACE FUNCTION jobsight_notify_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('jobsight_changes', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

CREATE TRIGGER models_changed AFTER INSERT OR UPDATE OR DELETE ON models
  FOR EACH STATEMENT EXECUTE FUNCTION jobsight_notify_change();
CREATE TRIGGER policies_changed AFTER INSERT OR UPDATE OR DELETE ON policies
  FOR EACH STATEMENT EXECUTE FUNCTION jobsight_notify_change();
