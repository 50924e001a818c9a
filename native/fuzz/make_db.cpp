// fuzz_make_db OUT.db SCRIPT.sql...: a new SQLite database from SQL scripts, run in order
// (512-byte pages, so the seeds stay small). scripts/fuzz.mjs makes the rocpd seeds with it
// (test/fixtures/rocpd/make-fixture.sql and native/fuzz/seeds/rocpd/*.sql) where no sqlite3
// command is installed, and the regression database whose `kernels` view never ends.
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT.db SCRIPT.sql...\n", argv[0]);
    return 2;
  }
  std::remove(argv[1]);
  sqlite3* db = nullptr;
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
    std::fprintf(stderr, "%s: %s\n", argv[1], db ? sqlite3_errmsg(db) : "cannot open");
    return 1;
  }
  int status = 0;
  char* error = nullptr;
  if (sqlite3_exec(db, "PRAGMA page_size = 512; PRAGMA journal_mode = OFF", nullptr, nullptr, &error) != SQLITE_OK) {
    std::fprintf(stderr, "%s\n", error);
    status = 1;
  }
  for (int i = 2; i < argc && status == 0; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    const std::string sql((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) {
      std::fprintf(stderr, "cannot read %s\n", argv[i]);
      status = 1;
    } else if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      std::fprintf(stderr, "%s: %s\n", argv[i], error);
      status = 1;
    }
  }
  sqlite3_free(error);
  if (status == 0 && sqlite3_exec(db, "VACUUM", nullptr, nullptr, nullptr) != SQLITE_OK) status = 1;
  sqlite3_close(db);
  return status;
}
