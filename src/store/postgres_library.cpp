#include "store/postgres_library.hpp"

#include <dlfcn.h>

#include <stdexcept>
#include <string>

namespace infermark::results {
namespace {

constexpr const char* kLibPq = "libpq.so.5";

template <typename F>
void Bind(void* handle, F& target, const char* name) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) throw std::runtime_error(std::string(kLibPq) + " has no " + name + " (libpq too old?)");
  target = reinterpret_cast<F>(symbol);
}

LibPq Load() {
  dlerror();
  // Never closed: libpq stays loaded for the life of the process.
  void* handle = dlopen(kLibPq, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw std::runtime_error(std::string("a PostgreSQL store needs the PostgreSQL client library: cannot load ") +
                             kLibPq + " (" + (reason ? reason : "unknown reason") +
                             "); install Debian's libpq5 (scripts/setup.sh does)");
  }
  LibPq pq;
  Bind(handle, pq.connectdb_params, "PQconnectdbParams");
  Bind(handle, pq.status, "PQstatus");
  Bind(handle, pq.error_message, "PQerrorMessage");
  Bind(handle, pq.finish, "PQfinish");
  Bind(handle, pq.reset, "PQreset");
  Bind(handle, pq.set_notice_processor, "PQsetNoticeProcessor");
  Bind(handle, pq.exec, "PQexec");
  Bind(handle, pq.exec_params, "PQexecParams");
  Bind(handle, pq.result_status, "PQresultStatus");
  Bind(handle, pq.result_error_message, "PQresultErrorMessage");
  Bind(handle, pq.result_error_field, "PQresultErrorField");
  Bind(handle, pq.clear, "PQclear");
  Bind(handle, pq.ntuples, "PQntuples");
  Bind(handle, pq.nfields, "PQnfields");
  Bind(handle, pq.getvalue, "PQgetvalue");
  Bind(handle, pq.getisnull, "PQgetisnull");
  Bind(handle, pq.getlength, "PQgetlength");
  Bind(handle, pq.fname, "PQfname");
  Bind(handle, pq.ftype, "PQftype");
  return pq;
}

}  // namespace

const LibPq& LoadLibPq() {
  static const LibPq pq = Load();
  return pq;
}

}  // namespace infermark::results
