-- On top of test/fixtures/rocpd/make-fixture.sql: no agent table (GPUs from the agents that ran kernels).
DROP TABLE rocpd_info_agent;
