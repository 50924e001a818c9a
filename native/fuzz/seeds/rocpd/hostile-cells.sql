-- On top of test/fixtures/rocpd/make-fixture.sql: rows whose cells no profiler writes: int64's
-- extremes, reals out of int64's range, NULLs, text where numbers belong, a negative size.
INSERT INTO rocpd_kernel_dispatch VALUES
  (10, 2, 1, -9223372036854775808, 9223372036854775807, 256, 1, 1, 65536, 1, 1, 2),
  (11, 3, 2, 9223372036854775807, -9223372036854775808, 2147483648, -2147483649, 1, 1e300, -1e19, 1, 3),
  (12, 2, 1, 1e300, 1e999, NULL, 1, 1, 1, 1, 1, NULL),
  (13, NULL, 99, '9007199254741000', '99999999999999999999', 'x', 1, 1, 1, 1, 1, 4),
  (14, 5, 2, 9007199254742000, 9007199254741900, 1, 1, 1, 1, 1, 1, 5);
INSERT INTO rocpd_memory_copy VALUES
  (10, 1, 1, 2, -1, 9007199254740993, 9007199254741500, 1),
  (11, 2, 6, 5, 9223372036854775807, -9223372036854775808, 9223372036854775807, 4),
  (12, 99, NULL, 'GPU', 1e300, 1e300, -1e19, NULL),
  (13, 3, 3, 1, 4096, 9007199255500700, 9007199255500000, 7);
INSERT INTO rocpd_info_agent VALUES (7, 3, 'GPU', 9223372036854775807, 'gfx950'), (8, 3, 'GPU', NULL, NULL), (9, 3, NULL, -1, 'x');
INSERT INTO rocpd_info_kernel_symbol VALUES (3, NULL, NULL), (4, '_Z', '');
