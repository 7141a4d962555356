-- What a machine says it detects (seed 002's reportUnhostable, issue 9): the capabilities it has a
-- detector for, kept with its last report. Null when it never said: judged able to host everything.
alter table reports add column if not exists detects jsonb;
