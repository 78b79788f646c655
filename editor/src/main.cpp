// ardent-editor [SCENE.json | MODEL] [--results DIR [--compare DIR]] [--screenshot FILE [--force]]:
// the Qt front end. The screenshot option shows the window, waits for it to render, saves what the
// screen shows and quits (the README's picture and the screenshot test use it); an existing FILE
// is replaced only with --force (safe_output.h, as every writer).
#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPixmap>
#include <QScreen>
#include <QSurfaceFormat>
#include <QTimer>
#include <cstdio>

#include "ardent/editor/results_panel.h"
#include "ardent/pipeline/stop_signals.h"
#include "ardent/preprocess/errors.h"
#include "ardent/preprocess/safe_output.h"
#include "main_window.h"
#include "scene_view.h"

int main(int argc, char** argv) {
    QSurfaceFormat fmt;
    fmt.setDepthBufferSize(24);
    fmt.setSamples(4);
    QSurfaceFormat::setDefaultFormat(fmt);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Ardent");
    QApplication::setApplicationName("ardent-editor");
    QApplication::setApplicationVersion(ARDENT_VERSION);

    QCommandLineParser cli;
    cli.setApplicationDescription("Ardent room-acoustics editor");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("file", "A scene (.json) or a model file to import");
    QCommandLineOption results({"r", "results"}, "Show a results directory", "DIR");
    QCommandLineOption shot("screenshot", "Save a screenshot after loading and quit", "FILE");
    QCommandLineOption delay("screenshot-delay", "Milliseconds to wait before it (default 1500)",
                             "MS", "1500");
    QCommandLineOption compare("compare", "Compare the results with another results directory",
                               "DIR");
    QCommandLineOption force("force", "Replace the screenshot file if it exists");
    cli.addOptions({results, compare, shot, delay, force});
    cli.process(app);
    ardent::OutputRules shot_rules;
    shot_rules.replace = cli.isSet(force);
    if (cli.isSet(shot)) {  // refused before the window opens, not after it has rendered
        try {
            ardent::check_output_file(cli.value(shot).toStdString(), shot_rules);
        } catch (const ardent::InputError& e) {
            std::fprintf(stderr, "ardent-editor: %s\n", e.what());
            return 2;
        }
    }

    // SIGTERM, SIGHUP, SIGINT end the editor as closing it does: a running simulation stops and
    // removes its temporary output (or keeps a checkpointed run), and its lock goes.
    const ardent::pipeline::StopSignals stop_signals;
    QTimer stop_poll;
    QObject::connect(&stop_poll, &QTimer::timeout, [] {
        if (ardent::pipeline::StopSignals::raised())
            QApplication::exit(ardent::pipeline::StopSignals::exit_code());
    });
    stop_poll.start(100);
    ardent::editor::MainWindow window;
    window.show();
    int status = 0;
    if (!cli.positionalArguments().isEmpty() &&
        !window.open_path(cli.positionalArguments().first()))
        status = 2;
    if (cli.isSet(results) && !window.open_results(cli.value(results))) status = 2;
    if (cli.isSet(compare)) {
        QString error;
        if (!window.results()->setReference(cli.value(compare), &error)) {
            std::fprintf(stderr, "ardent-editor: %s\n", qPrintable(error));
            status = 2;
        }
    }
    if (cli.isSet(shot)) {
        const QString file = cli.value(shot);
        QTimer::singleShot(cli.value(delay).toInt(), &window, [&window, file, status, shot_rules] {
            // On a real display (Xvfb too) take the screen's pixels, as a user would see them;
            // offscreen, render the window itself.
            QPixmap pix;
            if (QGuiApplication::platformName() == "xcb" && window.screen())
                pix = window.screen()->grabWindow(0);
            if (pix.isNull()) pix = window.grab();
            try {
                const QByteArray format = QFileInfo(file).suffix().toLower().toLatin1();
                ardent::write_output_file(
                    file.toStdString(), shot_rules, [&](const std::filesystem::path& tmp) {
                        if (!pix.save(QString::fromStdString(tmp.string()),
                                      format.isEmpty() ? "png" : format.constData()))
                            throw ardent::InputError("cannot write '" + file.toStdString() +
                                                     "' (an image format Qt cannot write?)");
                    });
            } catch (const std::exception& e) {
                std::fprintf(stderr, "ardent-editor: %s\n", e.what());
                QApplication::exit(2);
                return;
            }
            if (!window.last_error().isEmpty())
                std::fprintf(stderr, "ardent-editor: %s\n", qPrintable(window.last_error()));
            QApplication::exit(status);
        });
    }
    return app.exec();
}
