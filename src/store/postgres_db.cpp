#include "store/postgres_db.hpp"

#include <charconv>
#include <regex>
#include <utility>

#include "core/diagnostic.hpp"
#include "store/postgres_library.hpp"

namespace infermark::results {
namespace {

// Server notices (`relation … already exists, skipping`) are not for the user.
void IgnoreNotice(void*, const char*) {}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string HidePassword(const std::string& url) {
  static const std::regex user_password(R"(^([A-Za-z][A-Za-z0-9+.-]*://[^:/@?]*):[^@/?]*@)");
  static const std::regex keyword(R"(password\s*=\s*('(?:[^'\\]|\\.)*'|[^\s&]*))");
  std::string hidden = std::regex_replace(url, user_password, "$1:***@");
  return std::regex_replace(hidden, keyword, "password=***");
}

PgResult::PgResult(pg_result* result) : result_(result) {}

PgResult::~PgResult() {
  if (result_ != nullptr) LoadLibPq().clear(result_);
}

PgResult::PgResult(PgResult&& other) noexcept : result_(std::exchange(other.result_, nullptr)) {}

int PgResult::Rows() const {
  return LoadLibPq().ntuples(result_);
}

std::string PgResult::Text(int r, int c) const {
  const LibPq& pq = LoadLibPq();
  return std::string(pq.getvalue(result_, r, c), static_cast<std::size_t>(pq.getlength(result_, r, c)));
}

std::int64_t PgResult::Int(int r, int c) const {
  const LibPq& pq = LoadLibPq();
  const char* text = pq.getvalue(result_, r, c);
  std::int64_t value = 0;
  std::from_chars(text, text + pq.getlength(result_, r, c), value);
  return value;
}

double PgResult::Double(int r, int c) const {
  const LibPq& pq = LoadLibPq();
  const char* text = pq.getvalue(result_, r, c);
  double value = 0;
  std::from_chars(text, text + pq.getlength(result_, r, c), value);
  return value;
}

int PgResult::Columns() const {
  return LoadLibPq().nfields(result_);
}

std::string PgResult::ColumnName(int c) const {
  const char* name = LoadLibPq().fname(result_, c);
  return name != nullptr ? name : "";
}

bool PgResult::ColumnIsNumeric(int c) const {
  // The type oids of int2, int4, int8, float4, float8 and numeric (pg_type.h).
  const Oid type = LoadLibPq().ftype(result_, c);
  return type == 20 || type == 21 || type == 23 || type == 700 || type == 701 || type == 1700;
}

bool PgResult::IsNull(int r, int c) const {
  return LoadLibPq().getisnull(result_, r, c) != 0;
}

PgConnection::PgConnection(const std::string& url, const std::string& dbname) : name_(HidePassword(url)) {
  const LibPq& pq = LoadLibPq();
  // Later keywords override earlier ones: the URL's own settings replace the defaults before it,
  // and a second dbname replaces the URL's database. A server that does not answer fails in 10 s
  // unless the URL sets connect_timeout.
  std::vector<const char*> keys = {"connect_timeout", "application_name", "dbname"};
  std::vector<const char*> values = {"10", "infermark", url.c_str()};
  if (!dbname.empty()) {
    keys.push_back("dbname");
    values.push_back(dbname.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = pq.connectdb_params(keys.data(), values.data(), 1);
  if (conn_ == nullptr || pq.status(conn_) != CONNECTION_OK) {
    const std::string reason = conn_ ? Trimmed(pq.error_message(conn_)) : "out of memory";
    if (conn_ != nullptr) pq.finish(conn_);
    conn_ = nullptr;
    throw InputError(Diagnostic{{name_, 0, 0}, "", "", "cannot connect to the PostgreSQL results store: " + reason});
  }
  pq.set_notice_processor(conn_, IgnoreNotice, nullptr);
}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) LoadLibPq().finish(conn_);
}

bool PgConnection::Broken() const {
  return LoadLibPq().status(conn_) == CONNECTION_BAD;
}

void PgConnection::Reconnect() {
  const LibPq& pq = LoadLibPq();
  pq.reset(conn_);
  if (pq.status(conn_) != CONNECTION_OK) {
    throw PgError("results store " + name_ + ": cannot reconnect: " + Trimmed(pq.error_message(conn_)), "08006");
  }
  pq.set_notice_processor(conn_, IgnoreNotice, nullptr);
}

void PgConnection::Exec(std::string_view sql) {
  const std::string text(sql);
  Checked(LoadLibPq().exec(conn_, text.c_str()), text);
}

PgResult PgConnection::Query(std::string_view sql, const std::vector<PgParam>& params) {
  const std::string text(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const PgParam& p : params) values.push_back(p ? p->c_str() : nullptr);
  return Checked(LoadLibPq().exec_params(conn_, text.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                         nullptr, nullptr, 0),
                 text);
}

PgResult PgConnection::Checked(pg_result* raw, const std::string& sql) const {
  const LibPq& pq = LoadLibPq();
  PgResult result(raw);
  const ExecStatusType status = raw ? pq.result_status(raw) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = raw ? pq.result_error_field(raw, PG_DIAG_SQLSTATE) : nullptr;
    const std::string reason = Trimmed(raw ? pq.result_error_message(raw) : pq.error_message(conn_));
    const std::size_t first = sql.find_first_not_of(" \n");
    std::string statement = first == std::string::npos ? "" : sql.substr(first);
    statement = statement.substr(0, statement.find('\n')).substr(0, 80);
    throw PgError("results store " + name_ + ": " + reason + " (in: " + statement + ")", state ? state : "");
  }
  return result;
}

}  // namespace infermark::results
