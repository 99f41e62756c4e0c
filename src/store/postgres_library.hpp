// libpq, the PostgreSQL client library, opened at run time (dlopen) the first time a PostgreSQL
// store is used: linking it would load two dozen shared libraries at every start of every command
// (about 6 ms), for the few that talk to a server.
#pragma once

#include <libpq-fe.h>

namespace infermark::results {

/// The libpq functions the PostgreSQL store calls, typed as libpq-fe.h declares them.
struct LibPq {
  decltype(&::PQconnectdbParams) connectdb_params = nullptr;  ///< PQconnectdbParams.
  decltype(&::PQstatus) status = nullptr;                     ///< PQstatus.
  decltype(&::PQerrorMessage) error_message = nullptr;        ///< PQerrorMessage.
  decltype(&::PQfinish) finish = nullptr;
  decltype(&::PQreset) reset = nullptr;                              ///< PQfinish.
  decltype(&::PQsetNoticeProcessor) set_notice_processor = nullptr;  ///< PQsetNoticeProcessor.
  decltype(&::PQexec) exec = nullptr;                                ///< PQexec.
  decltype(&::PQexecParams) exec_params = nullptr;                   ///< PQexecParams.
  decltype(&::PQresultStatus) result_status = nullptr;               ///< PQresultStatus.
  decltype(&::PQresultErrorMessage) result_error_message = nullptr;  ///< PQresultErrorMessage.
  decltype(&::PQresultErrorField) result_error_field = nullptr;      ///< PQresultErrorField.
  decltype(&::PQclear) clear = nullptr;                              ///< PQclear.
  decltype(&::PQntuples) ntuples = nullptr;                          ///< PQntuples.
  decltype(&::PQnfields) nfields = nullptr;                          ///< PQnfields.
  decltype(&::PQgetvalue) getvalue = nullptr;                        ///< PQgetvalue.
  decltype(&::PQgetisnull) getisnull = nullptr;                      ///< PQgetisnull.
  decltype(&::PQgetlength) getlength = nullptr;                      ///< PQgetlength.
  decltype(&::PQfname) fname = nullptr;                              ///< PQfname.
  decltype(&::PQftype) ftype = nullptr;                              ///< PQftype.
};

/// libpq, loaded once (libpq.so.5) and kept for the life of the process. Throws std::runtime_error
/// naming the library and the Debian package to install when it cannot be loaded.
const LibPq& LoadLibPq();

}  // namespace infermark::results
