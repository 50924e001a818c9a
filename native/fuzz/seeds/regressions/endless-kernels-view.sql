-- On top of test/fixtures/rocpd/make-fixture.sql: a `kernels` view with the documented columns
-- whose rows never end (a recursive CTE). A reader that reads views never finishes. Remake the
-- regression input with (after a fuzz build):
--   native/build-fuzz/fuzz/fuzz_make_db native/fuzz/regressions/fuzz_rocpd_file/endless-kernels-view.db \
--     test/fixtures/rocpd/make-fixture.sql native/fuzz/seeds/regressions/endless-kernels-view.sql
DROP VIEW kernels;
CREATE VIEW kernels AS
  WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
  SELECT n AS id, 'k' AS name, 2 AS agent_id, 1 AS kernel_id, n AS start, n + 1 AS "end",
         1 AS grid_x, 1 AS grid_y, 1 AS grid_z, 1 AS workgroup_x, 1 AS workgroup_y, 1 AS workgroup_z,
         n AS correlation_id
  FROM r;
