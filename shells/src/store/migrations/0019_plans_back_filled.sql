-- Plan rows kept before tiers (0007) and before the verbs (0008) back-filled (issue 39) with what the
-- core has always read the missing columns as (core/src/gate/plan/plan.ts tiersOf and sentOf,
-- history.ts emptyHistory), so every stored plan spells its tiers, what was sent and its history:
-- one tier, the first machines, which the release sent; sent, those machines, and every machine of
-- its tiers and the rest (first seen first) once it passed; an empty history.
update plans set tiers = jsonb_build_array(machines) where tiers is null;

update plans p set sent = case
  when p.state = 'passed' then (
    select coalesce(jsonb_agg(u.m order by u.first_seen), '[]'::jsonb)
    from (
      select e.m, min(t.i * 1000000 + e.j) as first_seen
      from jsonb_array_elements(p.tiers || jsonb_build_array(p.rest)) with ordinality as t(tier, i),
        jsonb_array_elements_text(t.tier) with ordinality as e(m, j)
      group by e.m
    ) u
  )
  else p.machines
end
where p.sent is null;

update plans set history = '{"first": [], "newest": [], "dropped": 0}'::jsonb where history is null;
