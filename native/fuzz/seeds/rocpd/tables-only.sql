-- On top of test/fixtures/rocpd/make-fixture.sql: no views, so a reader takes the tables.
DROP VIEW kernels;
DROP VIEW memory_copies;
