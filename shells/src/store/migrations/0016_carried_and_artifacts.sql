-- What a plan's tier send moved beside its own module (seed 003's Carried and running filter, rules
-- 003-14 and 003-15/17; issue 26): `carried`, each other module whose build the send changed on a
-- machine of the tier ({node, module, build}), judged with the plan's gate and passed with it;
-- `without`, the machines of the tier told a declaration that does not carry the module, which the
-- gate does not judge it on. Both are the current tier's, cleared when the next is sent.
alter table plans add column carried jsonb, add column without jsonb;

-- What makes two builds the same thing beside their source (seed 003's unchangedBy, rules 003-23/24):
-- the fingerprint of the manifest a build was made from and of the artifacts it made. A send between
-- two builds that made the same artifacts from the same manifest changed nothing, and is never put back.
alter table builds add column manifest text, add column artifacts text;
