-- Room on each page of standings for a row's next version (issue 11: the follower keeps up). The
-- follower rewrites a key's row for every newer word. On a full page the new version goes to another
-- page and both indexes (the key, and standings_failing) get an entry for it; with 30% of each page
-- left free, PostgreSQL puts it beside the old one and touches no index (a heap-only update: `state`,
-- the only indexed column a word changes, changes only when a standing fails or clears). Measured
-- with `npm run bench:standings`: nearly all updates heap-only, and the store's CPU for the same
-- upserts down by about a third. Pages written from now on get the room; `vacuum full standings`
-- gives it to those already there.
alter table standings set (fillfactor = 70);
