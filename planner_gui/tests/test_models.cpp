// gui_models: the GUI-free model library against files the CLI wrote (fixtures copied from real runs, see
// fixtures/README.md): loaders, the comparison table (QAbstractItemModelTester, exact values, best marks),
// CSV export round trip, chart math (frontier, CDF), scenario edits.

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "fleetcast/gui/chart_math.hpp"
#include "fleetcast/gui/comparison_table_model.hpp"
#include "fleetcast/gui/loaders.hpp"
#include "fleetcast/gui/scenario_draft.hpp"
#include "fleetcast/gui/table_csv.hpp"

using namespace fleetcast::gui;
using Col = ComparisonTableModel::Column;

namespace {

const QString kSweep = QStringLiteral(GUI_FIXTURES "/sweeps/small/results.jsonl");
const QString kReportH100 = QStringLiteral(GUI_FIXTURES "/report-h100.json");
const QString kReportH200 = QStringLiteral(GUI_FIXTURES "/report-h200.json");

// The fixture's lines parsed with Qt's JSON reader, independently of the loader (which uses nlohmann).
QVector<QJsonObject> sweep_lines() {
  QFile f(kSweep);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open %s", qPrintable(kSweep));
  QVector<QJsonObject> lines;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (!line.trimmed().isEmpty()) lines << QJsonDocument::fromJson(line).object();
  return lines;
}

// The figure each column shows, straight from a results.jsonl line.
double expected(const QJsonObject& line, int column) {
  const QJsonObject b = line["benchmark_record"].toObject();
  switch (column) {
    case Col::ttft_p50_ms:
      return b["ttft_p50_ms"].toDouble();
    case Col::ttft_p95_ms:
      return b["ttft_p95_ms"].toDouble();
    case Col::tpot_mean_ms:
      return b["tpot_mean_ms"].toDouble();
    case Col::output_tokens_per_s_per_gpu:
      return b["output_tokens_per_s_per_gpu"].toDouble();
    case Col::tokens_per_s_per_user:
      return b["tokens_per_s_per_user"].toDouble();
    case Col::usd_per_m_tokens:
      return line["cost"].toObject()["usd_per_m_tokens_blended"].toDouble();
    case Col::gpus:
      return b["gpu_count"].toInt();
    default:
      return NAN;
  }
}

int point_with(int tp, double rate) {
  const auto lines = sweep_lines();
  for (const auto& l : lines) {
    const QJsonObject p = l["parameters"].toObject();
    if (p["deployment.replica.tp"].toInt() == tp && p["workload.arrival.rate_per_s"].toDouble() == rate)
      return l["point"].toInt();
  }
  return -1;
}

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT

 private slots:
  void sweep_fills_table_with_exact_values() {
    ComparisonTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(load_sweep_results(kSweep));
    const auto lines = sweep_lines();
    QCOMPARE(model.rowCount(), lines.size());
    QCOMPARE(model.rowCount(), 6);  // tp 1,2 x rate 2,4,8
    for (int row = 0; row < lines.size(); ++row) {
      QCOMPARE(lines[row]["point"].toInt(), row);  // results.jsonl is sorted by point, and so is the table
      QVERIFY(model.index(row, Col::label).data().toString().startsWith(QString("small #%1 ").arg(row)));
      for (int col = 1; col < Col::column_count; ++col) {
        const double v = model.index(row, col).data(ComparisonTableModel::value_role).toDouble();
        QCOMPARE(v, expected(lines[row], col));  // exact: the same decimal text, read by two JSON readers
        QCOMPARE(model.index(row, col).data().toString(), ComparisonTableModel::format(v, col));
      }
    }
    // The displayed text of a known cell, checked by hand against the file: point 0's TTFT p50 12.4931 ms.
    QCOMPARE(model.index(0, Col::ttft_p50_ms).data().toString(), QStringLiteral("12.49"));
  }

  void best_in_column_marks_the_right_rows() {
    ComparisonTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(load_sweep_results(kSweep));
    auto best_rows = [&](int col) {
      QList<int> rows;
      for (int r = 0; r < model.rowCount(); ++r)
        if (model.index(r, col).data(ComparisonTableModel::best_role).toBool()) rows << r;
      return rows;
    };
    // TP2 splits each step over two GPUs: shorter steps, so lower TTFT and TPOT and more tokens/s per user, at
    // the lightest load (2 req/s) where queueing is least.
    const int tp2_rate2 = point_with(2, 2.0), tp2_rate8 = point_with(2, 8.0);
    QVERIFY(tp2_rate2 >= 0 && tp2_rate8 >= 0);
    QCOMPARE(best_rows(Col::ttft_p50_ms), QList<int>{tp2_rate2});
    QCOMPARE(best_rows(Col::tpot_mean_ms), QList<int>{tp2_rate2});
    QCOMPARE(best_rows(Col::tokens_per_s_per_user), QList<int>{tp2_rate2});
    // The same 8 GPUs are paid for at every rate: the highest load gives the most output per GPU and the lowest
    // $/M tokens.
    QCOMPARE(best_rows(Col::output_tokens_per_s_per_gpu), QList<int>{tp2_rate8});
    QCOMPARE(best_rows(Col::usd_per_m_tokens), QList<int>{tp2_rate8});
    // Every point uses 8 GPUs: a tie marks every row.
    QCOMPARE(best_rows(Col::gpus).size(), 6);
    // And the marks agree with a direct search of the file for every figure column.
    const auto lines = sweep_lines();
    for (int col = 1; col < Col::column_count; ++col) {
      double best = expected(lines[0], col);
      for (const auto& l : lines)
        best = ComparisonTableModel::higher_is_better(col) ? std::max(best, expected(l, col))
                                                           : std::min(best, expected(l, col));
      for (int r = 0; r < lines.size(); ++r) QCOMPARE(best_rows(col).contains(r), expected(lines[r], col) == best);
    }
  }

  void failed_point_is_shown_and_never_best() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("tagx"));
    QFile in(kSweep);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QFile out(dir.path() + "/tagx/results.jsonl");
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(in.readAll());
    out.write(
        R"({"error":"deployment.replica.tp = 3: must divide 8","input_error":true,"parameters":{"deployment.replica.tp":3},"point":6})"
        "\n");
    out.close();
    ComparisonTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(load_sweep_results(out.fileName()));
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.index(6, Col::label).data().toString(), QStringLiteral("tagx #6 tp=3 (failed)"));
    QVERIFY(model.index(6, Col::label).data(Qt::ToolTipRole).toString().contains("must divide 8"));
    for (int col = 1; col < Col::column_count; ++col) {
      QVERIFY(std::isnan(model.index(6, col).data(ComparisonTableModel::value_role).toDouble()));
      QVERIFY(!model.index(6, col).data(ComparisonTableModel::best_role).toBool());
    }
  }

  void csv_export_round_trips() {
    ComparisonTableModel model;
    model.append(load_sweep_results(kSweep));
    model.append({load_report(kReportH100)});
    QTemporaryDir dir;
    const QString path = dir.path() + "/table.csv";
    QString error;
    QVERIFY2(write_table_csv(model, path, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto rows = parse_csv(QString::fromUtf8(f.readAll()));
    QCOMPARE(rows.size(), model.rowCount() + 1);
    QCOMPARE(rows[0].size(), int(Col::column_count));
    QCOMPARE(rows[0][Col::tokens_per_s_per_user], QStringLiteral("Tok/s per user"));
    for (int r = 0; r < model.rowCount(); ++r) {
      QCOMPARE(rows[r + 1][Col::label], model.index(r, Col::label).data().toString());
      for (int c = 1; c < Col::column_count; ++c) {
        bool ok = false;
        const double back = rows[r + 1][c].toDouble(&ok);
        QVERIFY(ok);
        QCOMPARE(back, model.index(r, c).data(ComparisonTableModel::value_role).toDouble());
      }
    }
    // A label with a comma and a quote survives the quoting.
    QCOMPARE(parse_csv("a,\"b, \"\"c\"\"\"\n1,2\n"), (QVector<QStringList>{{"a", "b, \"c\""}, {"1", "2"}}));
  }

  void report_loads_figures_and_latency_cdf() {
    const Configuration c = load_report(kReportH100);
    QFile f(kReportH100);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject ttft = j["metrics"].toObject()["ttft_ms"].toObject();
    QCOMPARE(c.record.ttft_p95_ms, j["benchmark_record"].toObject()["ttft_p95_ms"].toDouble());
    QCOMPARE(c.cost.usd_per_hour, j["cost"].toObject()["usd_per_hour"].toDouble());
    // CDF: min at share 0, max at share 1, p50 at 0.5 equal to the benchmark record's TTFT p50, never falling.
    const QVector<QPointF> cdf = latency_cdf(c.ttft);
    QCOMPARE(cdf.size(), 6);
    QCOMPARE(cdf.front(), QPointF(ttft["min"].toDouble(), 0.0));
    QCOMPARE(cdf.back(), QPointF(ttft["max"].toDouble(), 1.0));
    QCOMPARE(cdf[1], QPointF(c.record.ttft_p50_ms, 0.5));
    for (int i = 1; i < cdf.size(); ++i) QVERIFY(cdf[i].x() >= cdf[i - 1].x() && cdf[i].y() > cdf[i - 1].y());
    // Timeline (written with --timeline): a column per series, all the same length.
    QVERIFY(c.timeline.t_s.size() > 10);
    QCOMPARE(c.timeline.waiting.size(), c.timeline.t_s.size());
    QCOMPARE(c.timeline.kv_used_share.size(), c.timeline.t_s.size());
    // Cost split adds up to the paid $/hour.
    const CostSplit split = cost_split(c.cost);
    QVERIFY(split.idle_usd_per_hour > 0.0);
    QCOMPARE(split.busy_usd_per_hour + split.idle_usd_per_hour, c.cost.usd_per_hour);
  }

  void a_profile_outside_the_kernel_level_figures_marks_its_row() {
    QFile f(kReportH100);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    QTemporaryDir dir;
    const auto write = [&](const QString& name) {
      QFile out(dir.path() + "/" + name);
      if (!out.open(QIODevice::WriteOnly)) qFatal("cannot write");
      out.write(QJsonDocument(j).toJson());
      return out.fileName();
    };
    QJsonObject derived = j["derived"].toObject();
    derived["profile_kernel_caveats"] = QJsonArray{};
    j["derived"] = derived;
    const Configuration clean = load_report(write("clean.json"));
    QVERIFY(clean.profile_caveats.isEmpty());
    derived["profile_kernel_caveats"] = QJsonArray{
        QJsonObject{{"field", "memory_efficiency"}, {"value", 0.4}, {"kernel_level", 0.9}, {"above", false}}};
    j["derived"] = derived;
    derived["profile_measured_error"] =
        QJsonObject{{"hardware", "h100"},
                    {"runtime", "vllm"},
                    {"profile_kind", "fitted"},
                    {"profile_fingerprint", "0123456789abcdef"},
                    {"rows", 12},
                    {"models", QJsonArray{"qwen3-32b"}},
                    {"ttft", QJsonObject{{"median_ape", 0.25}, {"p90_ape", 0.5}, {"median_ratio", 1.2}}},
                    {"tpot", QJsonObject{{"median_ape", 0.1}, {"p90_ape", 0.2}, {"median_ratio", 0.9}}}};
    derived["profile_unseen_model_error"] = QJsonObject{
        {"scope", "pair"},
        {"hardware", "h100"},
        {"runtime", "vllm"},
        {"models_left_out", QJsonArray{"llama-3.1-70b", "qwen3-32b"}},
        {"rows", 138},
        {"ttft", QJsonObject{{"median_ape", 0.5}, {"lowest_ape", 0.2}, {"highest_ape", 0.8}, {"median_ratio", 1.5}}},
        {"tpot", QJsonObject{{"median_ape", 0.1}, {"lowest_ape", 0.05}, {"highest_ape", 0.15}, {"median_ratio", 1.0}}}};
    j["derived"] = derived;
    const Configuration noted = load_report(write("noted.json"));
    QVERIFY(clean.profile_unseen_model_error.isEmpty());
    QVERIFY(
        noted.profile_unseen_model_error.startsWith("on a model outside the fit's measured runs: TTFT off by a "
                                                    "median 50% (20-80% by model, predicted/measured 1.50x)"));
    QVERIFY(noted.details.contains("profile on a model outside the fit's measured runs"));
    // A bad one is named.
    derived["profile_unseen_model_error"] = QJsonObject{{"scope", "model"}};
    j["derived"] = derived;
    bool named = false;
    try {
      load_report(write("bad.json"));
    } catch (const LoadError& e) {
      named = QString(e.what()).contains("derived.profile_unseen_model_error.");
    }
    QVERIFY(named);
    derived.remove("profile_unseen_model_error");
    // On a GPU without a fit: its pick's error on the GPUs with measured runs, as the CLI words it.
    derived["profile_unfitted_gpu_error"] = QJsonObject{
        {"hardware", "gb200"},
        {"runtime", "vllm"},
        {"gpus", QJsonArray{"b200", "h100"}},
        {"rows", 40},
        {"ttft", QJsonObject{{"median_ape", 0.3}, {"lowest_ape", 0.2}, {"highest_ape", 0.4}, {"median_ratio", 0.9}}},
        {"tpot", QJsonObject{{"median_ape", 0.1}, {"lowest_ape", 0.05}, {"highest_ape", 0.15}, {"median_ratio", 1.0}}}};
    j["derived"] = derived;
    const Configuration unfitted = load_report(write("unfitted.json"));
    QVERIFY(clean.profile_unfitted_gpu_error.isEmpty());
    QVERIFY(unfitted.profile_unfitted_gpu_error.startsWith(
        "as a GPU without a fit: TTFT off by a median 30% (20-40% by GPU, predicted/measured 0.90x)"));
    QVERIFY(unfitted.details.contains("profile as a GPU without a fit"));
    derived["profile_unfitted_gpu_error"] = QJsonObject{{"hardware", "gb200"}};
    j["derived"] = derived;
    named = false;
    try {
      load_report(write("bad.json"));
    } catch (const LoadError& e) {
      named = QString(e.what()).contains("derived.profile_unfitted_gpu_error.");
    }
    QVERIFY(named);
    derived.remove("profile_unfitted_gpu_error");
    j["derived"] = derived;
    QCOMPARE(noted.profile_caveats, QString("memory_efficiency 0.40 < half of 0.90"));
    QVERIFY(clean.profile_measured_error.isEmpty());
    QCOMPARE(noted.profile_measured_error, QString("TTFT off by a median 25% (p90 50%, predicted/measured 1.20x), TPOT "
                                                   "10% (p90 20%, 0.90x) on 12 held-out measured runs of qwen3-32b"));
    QVERIFY(noted.details.contains("profile measured: TTFT off by a median 25%"));
    QVERIFY(noted.details.contains("profile outside the kernel-level figures: memory_efficiency 0.40"));

    ComparisonTableModel model;
    model.append({clean, noted});
    QCOMPARE(model.index(0, ComparisonTableModel::label).data().toString(), clean.label);
    QCOMPARE(model.index(1, ComparisonTableModel::label).data().toString(), noted.label + " †");
    QVERIFY(model.index(1, ComparisonTableModel::label).data(Qt::ToolTipRole).toString().contains("0.40 < half"));
  }

  void pareto_frontier_of_the_sweep() {
    QVector<Configuration> all = load_sweep_results(kSweep);
    all << load_report(kReportH100) << load_report(kReportH200);
    const ParetoData data = pareto_data(all);
    QCOMPARE(data.series.size(), 3);  // the sweep's tag and one series per report
    QCOMPARE(data.series[0].name, QStringLiteral("small"));
    QCOMPARE(data.series[0].points.size(), 6);
    QVERIFY(!data.frontier.points.isEmpty());
    auto dominates = [](QPointF a, QPointF b) {
      return a.x() >= b.x() && a.y() >= b.y() && (a.x() > b.x() || a.y() > b.y());
    };
    QVector<QPointF> points;
    for (const auto& s : data.series) points += s.points;
    // No point beats a frontier point; every other point is beaten by a frontier point; x increases along it.
    for (const QPointF f : data.frontier.points)
      for (const QPointF p : points) QVERIFY(!dominates(p, f));
    for (const QPointF p : points) {
      if (data.frontier.points.contains(p)) continue;
      QVERIFY(std::any_of(data.frontier.points.begin(), data.frontier.points.end(),
                          [&](QPointF f) { return dominates(f, p); }));
    }
    for (int i = 1; i < data.frontier.points.size(); ++i)
      QVERIFY(data.frontier.points[i].x() > data.frontier.points[i - 1].x());
    QCOMPARE(data.frontier.tooltips.size(), data.frontier.points.size());
  }

  void measured_silicon_rows() {
    const auto rows =
        load_silicon_csv(QStringLiteral(FLEETCAST_SOURCE_DIR "/tests/validation/fixtures/silicon-small.csv"));
    QVERIFY(rows.size() >= 2);
    const Configuration& qwen = *std::find_if(rows.begin(), rows.end(), [](const Configuration& c) {
      return c.label == "qwen235_h200_vllm_agg_1024x32_c8_dp2";
    });
    QCOMPARE(qwen.record.gpu_count, 8);  // TP4 x attention DP2
    QCOMPARE(qwen.record.tpot_mean_ms, 20.0);
    QCOMPARE(qwen.record.tokens_per_s_per_user, 50.0);  // 1000 / 20 ms
    QVERIFY(std::isnan(qwen.record.output_tokens_per_s_per_gpu));
    QCOMPARE(qwen.origin, Origin::measured);
  }

  void validation_overlay() {
    const QString path = QStringLiteral(GUI_FIXTURES "/validation-small.json");
    const LoadedFile loaded = load_any(path);
    QVERIFY(loaded.configurations.isEmpty());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(loaded.validation.size(), j["rows_predicted"].toInt());  // rows not predicted are left out
    QCOMPARE(loaded.validation.size(), 3);
    for (const ValidationPoint& p : loaded.validation) {
      for (const QJsonValue row : j["rows"].toArray()) {
        if (row["id"].toString() != p.id) continue;
        QVERIFY(row["predicted"].toBool());
        QCOMPARE(p.measured_tpot_ms, row["measured_tpot_ms"].toDouble());
        QCOMPARE(p.predicted_tpot_ms, row["predicted_tpot_ms"].toDouble());
        QCOMPARE(p.predicted_ttft_ms, row["predicted_ttft_ms"].toDouble());
      }
    }
    const MeasuredVsPredicted mvp = measured_vs_predicted(loaded.validation);
    QCOMPARE(mvp.ttft.points.size(), 3);
    QCOMPARE(mvp.tpot.points.size(), 3);
    // The identity line reaches the largest figure of either axis, so every point lies under its span.
    double top = 0.0;
    for (const auto& s : {mvp.ttft, mvp.tpot})
      for (QPointF p : s.points) top = std::max({top, p.x(), p.y()});
    QCOMPARE(mvp.identity.points.back(), QPointF(top, top));
    // Tooltip: the run and its signed error, e.g. measured 20 ms, predicted 12.64 ms is -36.8%.
    const int qwen = std::find_if(loaded.validation.begin(), loaded.validation.end(),
                                  [](const ValidationPoint& p) { return p.id.startsWith("qwen235"); }) -
                     loaded.validation.begin();
    const ValidationPoint& q = loaded.validation[qwen];
    const QString expected_error = QString::number(100.0 * (q.predicted_tpot_ms - 20.0) / 20.0, 'f', 1) + "%";
    QVERIFY2(mvp.tpot.tooltips[qwen].contains(expected_error), qPrintable(mvp.tpot.tooltips[qwen]));
    QVERIFY(mvp.tpot.tooltips[qwen].startsWith(q.id));
  }

  void bad_files_say_which_and_why() {
    QTemporaryDir dir;
    QFile f(dir.path() + "/broken.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"metrics\": {}}");
    f.close();
    try {
      load_report(f.fileName());
      QFAIL("no error");
    } catch (const LoadError& e) {
      QVERIFY(QString(e.what()).contains("broken.json"));
      QVERIFY(QString(e.what()).contains("no benchmark_record"));
    }
    try {
      load_report(dir.path() + "/absent.json");
      QFAIL("no error");
    } catch (const LoadError& e) {
      QVERIFY(QString(e.what()).contains("absent.json: cannot open"));
    }
  }

  void scenario_edits_replace_fields() {
    QVERIFY(preset_names("model").contains("llama-3.1-8b"));
    QVERIFY(preset_names("scenario").contains("default"));
    const QJsonObject base = scenario_preset("default");
    QVERIFY(base["workload"].toObject()["arrival"].toObject().contains("load"));
    ScenarioEdits edits;
    edits.model = "qwen3-32b";
    edits.hardware = "h200";
    edits.tp = 2;
    edits.nodes = 1;
    edits.rate_per_s = 3.5;
    edits.num_requests = 500;
    const QJsonObject s = apply_edits(base, edits);
    QCOMPARE(s["model"].toString(), QStringLiteral("qwen3-32b"));
    QCOMPARE(s["deployment"].toObject()["hardware"].toString(), QStringLiteral("h200"));
    QCOMPARE(s["deployment"].toObject()["replica"].toObject()["tp"].toInt(), 2);
    QCOMPARE(s["deployment"].toObject()["replica"].toObject()["ep"].toInt(), 8);  // untouched
    const QJsonObject arrival = s["workload"].toObject()["arrival"].toObject();
    QVERIFY(!arrival.contains("load"));  // a rate replaces the load share
    QCOMPARE(arrival["rate_per_s"].toDouble(), 3.5);
    QCOMPARE(arrival["kind"].toString(), QStringLiteral("poisson"));
    QCOMPARE(s["num_requests"].toInt(), 500);
    QVERIFY(!s["deployment"].toObject().contains("runtime") ||
            s["deployment"].toObject()["runtime"] == base["deployment"].toObject()["runtime"]);  // kept
  }

  void a_new_engine_takes_its_own_scheduler() {
    QCOMPARE(runtime_names(), QStringList({"vllm", "sglang", "trtllm", "deepinfer", "atom"}));
    QJsonObject base = scenario_preset("default");
    QJsonObject deployment = base["deployment"].toObject();
    deployment["scheduler"] = QJsonObject{{"policy", "vllm"}, {"max_num_seqs", 64}};
    deployment["disaggregation"] =
        QJsonObject{{"prefill", QJsonObject{{"nodes", 1}, {"scheduler", QJsonObject{{"policy", "vllm"}}}}},
                    {"decode", QJsonObject{{"nodes", 1}}}};
    base["deployment"] = deployment;
    ScenarioEdits engine;
    engine.runtime = "sglang";
    const QJsonObject d = apply_edits(base, engine)["deployment"].toObject();
    QCOMPARE(d["runtime"].toString(), QStringLiteral("sglang"));
    // The policy goes (SGLang schedules as SGLang does), the cap stays; a pool's policy goes too.
    QVERIFY(!d["scheduler"].toObject().contains("policy"));
    QCOMPARE(d["scheduler"].toObject()["max_num_seqs"].toInt(), 64);
    const QJsonObject pools = d["disaggregation"].toObject();
    QVERIFY(!pools["prefill"].toObject()["scheduler"].toObject().contains("policy"));
    QCOMPARE(pools["decode"].toObject(), QJsonObject({{"nodes", 1}}));
    // No engine picked: the base's policy is kept.
    ScenarioEdits tp_only;
    tp_only.tp = 2;
    const QJsonObject kept = apply_edits(base, tp_only)["deployment"].toObject();
    QCOMPARE(kept["scheduler"].toObject()["policy"].toString(), QStringLiteral("vllm"));
  }
};

QTEST_GUILESS_MAIN(ModelsTest)
#include "test_models.moc"
