// gui_plan_models: a plan output written by the real CLI on the toy plan (fixtures/plan-toy.json, see
// fixtures/README.md) through the GUI-free model library: the loader against the JSON read independently with Qt's
// reader, the ranking table (QAbstractItemModelTester, exact values, the lowest of each column marked), the
// rejections counted by reason with their first example, and the plan's Pareto frontier.

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "fleetcast/gui/chart_math.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/plan_rejection_model.hpp"
#include "fleetcast/gui/plan_table_model.hpp"

using namespace fleetcast::gui;
using Col = PlanTableModel::Column;

namespace {

const QString kPlan = QStringLiteral(GUI_FIXTURES "/plan-toy.json");

QJsonObject plan_json() {
  QFile f(kPlan);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s", qPrintable(kPlan));
  return QJsonDocument::fromJson(f.readAll()).object();
}

// The worst class's p95 of `key`, from the JSON (the loader's rule, computed here with Qt's reader).
double worst(const QJsonObject& figures, const char* key) {
  double w = NAN;
  const QJsonObject classes = figures["classes"].toObject();
  for (const QString& name : classes.keys()) {
    const double v = classes[name].toObject()[key].toDouble(NAN);
    if (std::isfinite(v) && !(v <= w)) w = v;
  }
  return w;
}

double expected(const QJsonObject& e, int column) {
  const QJsonObject f = e["figures"].toObject();
  switch (column) {
    case Col::usd_per_m_tokens:
      return f["usd_per_m_blended"].toDouble();
    case Col::gpus:
      return e["gpus"].toInt();
    case Col::usd_per_hour:
      return e["usd_per_hour"].toDouble();
    case Col::ttft_p95_ms:
      return worst(f, "ttft_p95_ms");
    case Col::tpot_p95_ms:
      return worst(f, "tpot_p95_ms");
    default:
      return NAN;
  }
}

}  // namespace

class PlanModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void loader_matches_the_json() {
    const QJsonObject j = plan_json();
    const PlanOutcome plan = load_plan_output(kPlan);
    const QJsonObject s = j["summary"].toObject();
    QCOMPARE(plan.candidates, s["candidates"].toInt());
    QCOMPARE(plan.pruned, s["pruned"].toInt());
    QCOMPARE(plan.simulated, s["simulated"].toInt());
    QCOMPARE(plan.feasible, s["feasible"].toInt());
    QCOMPARE(plan.name, j["plan"].toObject()["name"].toString());
    const QJsonArray feasible = j["feasible"].toArray();
    QVERIFY2(feasible.size() >= 3, "the toy plan has several feasible configurations to compare");
    QCOMPARE(plan.rows.size(), feasible.size());
    for (int i = 0; i < feasible.size(); ++i) {
      const QJsonObject e = feasible[i].toObject();
      const PlanRow& r = plan.rows[i];
      QCOMPARE(r.rank, i + 1);
      QCOMPARE(r.config, e["config"].toInt());
      QCOMPARE(r.description, e["description"].toString());
      QCOMPARE(r.hardware, e["hardware"].toString());
      QCOMPARE(r.pareto, e["pareto"].toBool());
      QCOMPARE(r.tokens_per_s_per_user, e["figures"].toObject()["tokens_per_s_per_user"].toDouble());
      for (int col : {Col::usd_per_m_tokens, Col::gpus, Col::usd_per_hour, Col::ttft_p95_ms, Col::tpot_p95_ms})
        QCOMPARE(PlanTableModel::value(r, col), expected(e, col));
      // Ranked by $/M tokens: the cheapest first.
      if (i > 0) QVERIFY(plan.rows[i - 1].usd_per_m_tokens <= r.usd_per_m_tokens);
    }
  }

  void table_shows_values_and_marks_the_lowest() {
    const PlanOutcome plan = load_plan_output(kPlan);
    PlanTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_rows(plan.rows);
    QCOMPARE(model.rowCount(), static_cast<int>(plan.rows.size()));
    QCOMPARE(model.columnCount(), static_cast<int>(Col::column_count));
    const QJsonArray feasible = plan_json()["feasible"].toArray();
    for (int col : {Col::usd_per_m_tokens, Col::gpus, Col::usd_per_hour, Col::ttft_p95_ms, Col::tpot_p95_ms}) {
      double lowest = INFINITY;
      for (const auto& e : feasible) lowest = std::min(lowest, expected(e.toObject(), col));
      int marked = 0;
      for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex at = model.index(row, col);
        const double v = at.data(PlanTableModel::value_role).toDouble();
        QCOMPARE(v, expected(feasible[row].toObject(), col));
        const bool best = at.data(PlanTableModel::best_role).toBool();
        QCOMPARE(best, v == lowest);
        marked += best;
      }
      QVERIFY2(marked >= 1, "every figure column marks its lowest value");
    }
    // Rank 1 is the cheapest per M tokens, so its $/M cell is the marked one.
    QVERIFY(model.index(0, Col::usd_per_m_tokens).data(PlanTableModel::best_role).toBool());
    QCOMPARE(model.index(0, Col::rank).data().toInt(), 1);
    QCOMPARE(model.index(0, Col::usd_per_m_tokens).data().toString(),
             QString::number(plan.rows[0].usd_per_m_tokens, 'f', 4));
    for (int row = 0; row < model.rowCount(); ++row)
      QCOMPARE(model.index(row, Col::pareto).data().toString().isEmpty(), !plan.rows[row].pareto);
    QVERIFY(!model.index(0, Col::rank).data(PlanTableModel::best_role).toBool());
    model.set_rows({});
    QCOMPARE(model.rowCount(), 0);
  }

  void rejections_counted_by_reason_with_an_example() {
    const QJsonObject j = plan_json();
    const PlanOutcome plan = load_plan_output(kPlan);
    const QJsonObject s = j["summary"].toObject();
    const QJsonObject pruned_by = s["pruned_by_reason"].toObject(),
                      simulated_by = s["rejected_after_simulation_by_reason"].toObject();
    QCOMPARE(plan.rejections.size(), pruned_by.size() + simulated_by.size());
    QVERIFY2(!plan.rejections.isEmpty(), "the toy plan turns some configurations down");
    int total = 0;
    for (const RejectionGroup& g : plan.rejections) {
      const QJsonObject& by = g.stage == "pruned" ? pruned_by : simulated_by;
      QCOMPARE(g.count, by[g.reason].toInt());
      total += g.count;
      // The example is the first rejected entry of that stage and reason, with its deciding figure.
      QJsonObject first;
      for (const auto& e : j["rejected"].toArray()) {
        const QJsonObject o = e.toObject();
        if (o["stage"].toString() == g.stage && o["rejection"].toObject()["reason"].toString() == g.reason) {
          first = o;
          break;
        }
      }
      QCOMPARE(g.example_description, first["description"].toString());
      const QJsonObject why = first["rejection"].toObject();
      QCOMPARE(g.example_detail, why["detail"].toString());
      QCOMPARE(g.example_metric, why["metric"].toString());
      if (why["value"].isDouble()) QCOMPARE(g.example_value, why["value"].toDouble());
    }
    QCOMPARE(total, j["rejected"].toArray().size());
    QCOMPARE(total, plan.candidates - plan.feasible);
    // Pruned groups come before those rejected after simulating.
    for (int i = 1; i < plan.rejections.size(); ++i)
      QVERIFY(!(plan.rejections[i].stage == "pruned" && plan.rejections[i - 1].stage == "simulated"));

    PlanRejectionModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_groups(plan.rejections);
    QCOMPARE(model.rowCount(), static_cast<int>(plan.rejections.size()));
    for (int row = 0; row < model.rowCount(); ++row) {
      const RejectionGroup& g = plan.rejections[row];
      QCOMPARE(model.index(row, PlanRejectionModel::count).data().toInt(), g.count);
      QCOMPARE(model.index(row, PlanRejectionModel::reason).data().toString(), g.reason);
      const QString figure = model.index(row, PlanRejectionModel::deciding_figure).data().toString();
      if (!g.example_metric.isEmpty() && std::isfinite(g.example_value))
        QVERIFY2(figure.startsWith(g.example_metric + " " + QString::number(g.example_value, 'g', 4) + " vs "),
                 qPrintable(figure));
    }
  }

  void frontier_is_the_plans_pareto_rows_in_cost_order() {
    const PlanOutcome plan = load_plan_output(kPlan);
    const ParetoData d = plan_pareto_data(plan);
    int on_frontier = 0, off = 0;
    for (const PlanRow& r : plan.rows) (r.pareto ? on_frontier : off) += 1;
    QVERIFY(on_frontier >= 1);
    QCOMPARE(d.frontier.points.size(), on_frontier);
    QCOMPARE(d.frontier.tooltips.size(), on_frontier);
    // Off the frontier, one series per GPU (the fixture predates engines in rows: no runtime named), each point once.
    int in_series = 0;
    QStringList names;
    for (const SeriesPoints& s : d.series) {
      in_series += s.points.size();
      names << s.name;
      QCOMPARE(s.tooltips.size(), s.points.size());
      for (const QString& tip : s.tooltips) QVERIFY2(tip.contains(s.name.section(',', 0, 0)), qPrintable(tip));
    }
    QCOMPARE(in_series, off);
    QCOMPARE(names, QStringList({"h100, off the frontier", "h200, off the frontier"}));
    // Along the frontier a costlier configuration must be faster per user, or it would not be on it.
    for (int i = 1; i < d.frontier.points.size(); ++i) {
      QVERIFY(d.frontier.points[i - 1].x() <= d.frontier.points[i].x());
      QVERIFY(d.frontier.points[i - 1].y() < d.frontier.points[i].y());
    }
    // No configuration off the frontier beats a frontier one on both axes.
    for (const SeriesPoints& s : d.series)
      for (const QPointF& p : s.points)
        for (const QPointF& f : d.frontier.points) QVERIFY(!(p.x() < f.x() && p.y() > f.y()));
    // The cheapest configuration is on the frontier (nothing is cheaper).
    QCOMPARE(d.frontier.points.front().x(), plan.rows.front().usd_per_m_tokens);
  }

  void profiles_outside_the_kernel_level_figures_reach_their_rows() {
    // The fixture predates `profiles`: none read, no row noted.
    const PlanOutcome old = load_plan_output(kPlan);
    QVERIFY(old.profiles.isEmpty());
    for (const PlanRow& r : old.rows) QVERIFY(r.profile_caveats.isEmpty());

    QJsonObject j = plan_json();
    const QJsonObject gemm{{"field", "matmul_efficiency.bf16"}, {"value", 1.0}, {"kernel_level", 0.8}, {"above", true}};
    j["profiles"] = QJsonArray{
        QJsonObject{
            {"hardware", "h100"}, {"runtime", "vllm"}, {"kind", "fitted"}, {"kernel_caveats", QJsonArray{gemm}}},
        QJsonObject{
            {"hardware", "h200"},
            {"runtime", "vllm"},
            {"kind", "datasheet"},
            {"kernel_caveats", QJsonArray{}},
            {"measured_error",
             QJsonObject{{"hardware", "h200"},
                         {"runtime", "vllm"},
                         {"profile_kind", "datasheet"},
                         {"profile_fingerprint", "0123456789abcdef"},
                         {"rows", 7},
                         {"models", QJsonArray{"llama-3.1-8b"}},
                         {"ttft", QJsonObject{{"median_ape", 0.4}, {"p90_ape", 0.9}, {"median_ratio", 1.5}}},
                         {"tpot", QJsonObject{{"median_ape", 0.2}, {"p90_ape", 0.3}, {"median_ratio", 1.1}}}}}}};
    QTemporaryDir dir;
    QFile f(dir.path() + "/with-profiles.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(j).toJson());
    f.close();
    const PlanOutcome plan = load_plan_output(f.fileName());
    QCOMPARE(plan.profiles.size(), 2);
    QCOMPARE(plan.profiles[0].kind, QString("fitted"));
    QCOMPARE(plan.profiles[0].caveats, QString("matmul_efficiency.bf16 1.00 > 0.80"));
    QVERIFY(plan.profiles[1].caveats.isEmpty());
    QVERIFY(plan.profiles[0].measured_error.isEmpty());
    QVERIFY(plan.profiles[1].measured_error.startsWith("TTFT off by a median 40% (p90 90%"));
    PlanTableModel model;
    model.set_rows(plan.rows);
    int noted = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
      const PlanRow& r = plan.rows[row];
      const bool h100 = r.hardware == "h100";
      QCOMPARE(r.profile_caveats, h100 ? plan.profiles[0].caveats : QString());
      const QString tip = model.index(row, Col::configuration).data(Qt::ToolTipRole).toString();
      QCOMPARE(tip.contains("outside the kernel-level figures: matmul_efficiency.bf16 1.00 > 0.80"), h100);
      noted += h100;
    }
    QVERIFY2(noted >= 1, "the toy plan has feasible H100 configurations");

    // A `profiles` entry without its caveats is an error naming the field, not a silent blank.
    j["profiles"] = QJsonArray{QJsonObject{{"hardware", "h100"}, {"runtime", "vllm"}, {"kind", "fitted"}}};
    QFile g(dir.path() + "/bad-profiles.json");
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(QJsonDocument(j).toJson());
    g.close();
    QString message;
    try {
      load_plan_output(g.fileName());
    } catch (const LoadError& e) {
      message = e.what();
    }
    QVERIFY2(message.contains("bad-profiles.json: field 'profiles[].kernel_caveats'"), qPrintable(message));
  }

  void each_row_takes_the_profile_of_its_own_engine() {
    // A plan over engines: the H100 under vLLM has a caveat, under TensorRT-LLM none; rows say which engine ran.
    QJsonObject j = plan_json();
    QJsonArray feasible = j["feasible"].toArray();
    for (int i = 0; i < feasible.size(); ++i) {
      QJsonObject e = feasible[i].toObject();
      const QString runtime = i % 2 == 0 ? "vllm" : "trtllm";
      e["runtime"] = runtime;
      // As the CLI writes it now: "h100 vllm x2 tp1 ...".
      const QString hardware = e["hardware"].toString();
      e["description"] = hardware + " " + runtime + e["description"].toString().mid(hardware.size());
      feasible[i] = e;
    }
    j["feasible"] = feasible;
    const QJsonObject gemm{{"field", "matmul_efficiency.bf16"}, {"value", 1.0}, {"kernel_level", 0.8}, {"above", true}};
    QJsonArray profiles;
    for (const char* hw : {"h100", "h200"}) {
      for (const char* runtime : {"vllm", "trtllm"}) {
        const bool noted = QString(hw) == "h100" && QString(runtime) == "vllm";
        profiles.append(QJsonObject{{"hardware", hw},
                                    {"runtime", runtime},
                                    {"kind", "fitted"},
                                    {"kernel_caveats", noted ? QJsonArray{gemm} : QJsonArray{}}});
      }
    }
    j["profiles"] = profiles;
    QTemporaryDir dir;
    QFile f(dir.path() + "/engines.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(j).toJson());
    f.close();
    const PlanOutcome plan = load_plan_output(f.fileName());
    QCOMPARE(plan.profiles.size(), 4);
    int noted = 0, clear_h100 = 0;
    for (int i = 0; i < plan.rows.size(); ++i) {
      const PlanRow& r = plan.rows[i];
      QCOMPARE(r.runtime, QString(i % 2 == 0 ? "vllm" : "trtllm"));
      const bool expect = r.hardware == "h100" && r.runtime == "vllm";
      QCOMPARE(r.profile_caveats.isEmpty(), !expect);
      noted += expect;
      clear_h100 += r.hardware == "h100" && r.runtime == "trtllm";
    }
    QVERIFY2(noted >= 1 && clear_h100 >= 1, "the toy plan has feasible H100 rows under both engines");
    // The Pareto chart keeps each GPU and engine apart.
    QStringList names;
    for (const SeriesPoints& s : plan_pareto_data(plan).series) {
      names << s.name;
      const QString group = s.name.section(',', 0, 0);
      for (const QString& tip : s.tooltips) QVERIFY2(tip.contains(" " + group + " x"), qPrintable(tip));
    }
    QVERIFY2(names.contains("h100 vllm, off the frontier") && names.contains("h100 trtllm, off the frontier"),
             qPrintable(names.join("; ")));
    QVERIFY(plan.engines_not_searched.isEmpty());  // the file lists none

    // An engine skipped on a GPU it does not run on is read with why.
    QJsonObject summary = j["summary"].toObject();
    summary["engines_not_searched"] = QJsonArray{QJsonObject{
        {"hardware", "mi300x"}, {"runtime", "trtllm"}, {"reason", "TensorRT-LLM (CUDA) runs on NVIDIA GPUs only"}}};
    j["summary"] = summary;
    QFile g(dir.path() + "/skipped.json");
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(QJsonDocument(j).toJson());
    g.close();
    QCOMPARE(load_plan_output(g.fileName()).engines_not_searched,
             QStringList{"trtllm on mi300x (TensorRT-LLM (CUDA) runs on NVIDIA GPUs only)"});
    // Rows written before plans searched engines name none and take their hardware's profile: the test above.
  }

  void headroom_against_the_error_on_record_reaches_the_table() {
    // The fixture predates the headroom: none read, nothing flagged.
    const PlanOutcome old = load_plan_output(kPlan);
    QCOMPARE(old.best_beyond_error_config, -1);
    for (const PlanRow& r : old.rows) QVERIFY(std::isnan(r.ttft_headroom) && !r.ttft_within_error);

    // The first feasible row 5% below its TTFT objective and flagged, the second 40% below and clear.
    QJsonObject j = plan_json();
    QJsonArray feasible = j["feasible"].toArray();
    QVERIFY(feasible.size() >= 2);
    QJsonObject first = feasible[0].toObject(), second = feasible[1].toObject();
    first["slo_headroom"] = QJsonObject{{"ttft", 0.05}, {"tpot", 0.5}};
    first["within_error"] = QJsonArray{"ttft"};
    second["slo_headroom"] = QJsonObject{{"ttft", 0.4}, {"tpot", QJsonValue::Null}};
    second["within_error"] = QJsonArray{};
    feasible[0] = first;
    feasible[1] = second;
    j["feasible"] = feasible;
    j["best_beyond_error"] = second;
    QTemporaryDir dir;
    QFile f(dir.path() + "/with-headroom.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(j).toJson());
    f.close();
    const PlanOutcome plan = load_plan_output(f.fileName());
    QCOMPARE(plan.best_beyond_error_config, second["config"].toInt());
    QCOMPARE(plan.rows[0].ttft_headroom, 0.05);
    QVERIFY(plan.rows[0].ttft_within_error && !plan.rows[0].tpot_within_error);
    QVERIFY(std::isnan(plan.rows[1].tpot_headroom));
    PlanTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_rows(plan.rows);
    QCOMPARE(model.index(0, Col::headroom).data().toString(), QString("5% ! / 50%"));
    QCOMPARE(model.index(1, Col::headroom).data().toString(), QString("40% / –"));
    QVERIFY(model.index(0, Col::configuration).data(Qt::ToolTipRole).toString().contains("cannot tell"));
    QVERIFY(!model.index(1, Col::configuration).data(Qt::ToolTipRole).toString().contains("cannot tell"));
  }

  void load_any_recognises_a_plan_and_bad_plans_say_why() {
    const LoadedFile loaded = load_any(kPlan);
    QVERIFY(loaded.plan.has_value());
    QVERIFY(loaded.configurations.isEmpty());
    QCOMPARE(loaded.plan->rows.size(), load_plan_output(kPlan).rows.size());

    QTemporaryDir dir;
    const auto write = [&](const QString& name, const QByteArray& bytes) {
      QFile f(dir.path() + "/" + name);
      if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write");
      f.write(bytes);
      return f.fileName();
    };
    const auto message = [](const QString& path) {
      try {
        load_plan_output(path);
      } catch (const LoadError& e) {
        return QString(e.what());
      }
      return QString();
    };
    const QString report = GUI_FIXTURES "/report-h100.json";
    QVERIFY(message(report).contains("report-h100.json: field 'schema'"));
    QJsonObject j = plan_json();
    QJsonObject s = j["summary"].toObject();
    s["feasible"] = s["feasible"].toInt() + 1;
    j["summary"] = s;
    const QString off = write("off.json", QJsonDocument(j).toJson());
    QVERIFY2(message(off).contains("off.json: field 'feasible' has"), qPrintable(message(off)));
    j = plan_json();
    j.remove("summary");
    const QString none = write("none.json", QJsonDocument(j).toJson());
    QVERIFY2(message(none).contains("none.json: field 'summary'"), qPrintable(message(none)));
  }
};

QTEST_GUILESS_MAIN(PlanModelsTest)
#include "test_plan_models.moc"
