-- On top of test/fixtures/rocpd/make-fixture.sql: a `memory_copies` view with the documented
-- columns whose rows never end (a recursive CTE). Remake as endless-kernels-view.sql says.
DROP VIEW memory_copies;
CREATE VIEW memory_copies AS
  WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
  SELECT n AS id, 'MEMORY_COPY_HOST_TO_DEVICE' AS name, n AS start, n + 1 AS "end", 8 AS size,
         1 AS src_agent_id, 2 AS dst_agent_id
  FROM r;
