#include "run/csv_rows.hpp"
