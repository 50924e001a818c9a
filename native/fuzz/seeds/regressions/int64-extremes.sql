-- On top of test/fixtures/rocpd/make-fixture.sql: dispatch and copy times at int64's extremes.
-- Remake as endless-kernels-view.sql says.
INSERT INTO rocpd_kernel_dispatch VALUES
  (10, 2, 1, -9223372036854775808, 9223372036854775807, 256, 1, 1, 65536, 1, 1, 2),
  (11, 3, 1, 9223372036854775807, 9223372036854775807, 256, 1, 1, 65536, 1, 1, 3);
INSERT INTO rocpd_memory_copy VALUES
  (10, 1, 1, 2, 9223372036854775807, -9223372036854775808, 9223372036854775807, 1);
