"""Build tools whose tasks are the project's code: Gradle tasks judged by what build.gradle(.kts)
makes them run, the Maven wrapper as mvn, CMake's install by where it writes; from real files on
disk through the engine."""
from __future__ import annotations

from guardtui.core.shell.gradlefiles import abbreviation, load_gradle

WRAPPER = ('#!/bin/sh\nAPP_HOME=$(cd "$(dirname "$0")" && pwd -P)\n'
           'exec java -classpath "$APP_HOME/gradle/wrapper/gradle-wrapper.jar" org.gradle.wrapper.GradleWrapperMain "$@"\n')

KOTLIN = """plugins { `maven-publish` }

tasks.test { useJUnitPlatform() }

tasks.register<Exec>("deployDev") {
    group = "deployment"
    dependsOn("build")
    commandLine("helm", "upgrade", "--install", "billing", "deploy/chart", "--set", "image.tag=$version")
}

tasks.register<Exec>("syncUpstream") {
    // "rm -rf /" in a comment runs nothing
    commandLine("sh", "-c", "git fetch upstream && git reset --hard upstream/main && git push --force origin main")
}

tasks.register("wipeHome") {
    doLast {
        project.exec { commandLine(listOf("rm", "-rf", System.getProperty("user.home"))) }
    }
}

tasks.register("nightly") {
    dependsOn(tasks.named("syncUpstream"))
}

tasks.register("printVersion") { doLast { println(version) } }
"""

GROOVY = """apply plugin: 'java'

task cleanCaches(type: Exec) {
    executable 'rm'
    args '-rf', "${System.getenv('HOME')}/.gradle/caches"
}

task fmt {
    doLast {
        'git push --force origin master'.execute()
    }
}

task lint(type: Exec) {
    commandLine 'ktlint', '--format'
}
"""


def test_a_gradle_task_is_judged_by_the_commands_its_definition_runs(machine):
    machine.write({"gradlew": WRAPPER, "settings.gradle.kts": 'rootProject.name = "billing"\n',
                   "build.gradle.kts": KOTLIN})
    decision = machine.judge("./gradlew syncUpstream")
    assert decision.verdict.value == "deny" and decision.reason.startswith("build.gradle.kts:13:"), decision.reason
    assert machine.verdict("./gradlew deployDev") == "ask"  # helm upgrade: a deploy
    assert machine.verdict("./gradlew nightly") == "deny"  # through what it depends on
    assert machine.verdict("./gradlew sU") == "deny"  # Gradle's camel-case abbreviation
    assert machine.verdict("gradle :syncUpstream") == "deny"
    assert machine.verdict("./gradlew wipeHome") == "ask"  # rm -rf of a path known only at run time
    for routine in ("./gradlew build", "./gradlew -q printVersion", "./gradlew clean build -x test",
                    "./gradlew test --tests 'com.acme.*'", "./gradlew publishToMavenLocal", "./gradlew tasks --all",
                    "./gradlew --dry-run syncUpstream", "./gradlew syncUpstream -m"):
        assert machine.verdict(routine) == "allow", routine


def test_gradle_tasks_that_publish_deploy_or_release_ask_by_name(machine):
    machine.write({"gradlew": WRAPPER, "build.gradle.kts": KOTLIN})
    for command in ("./gradlew publish", "./gradlew :lib:deployProd", "./gradlew jib",
                    "./gradlew closeAndReleaseSonatypeStagingRepository"):
        assert machine.verdict(command) == "ask", command
    for command in ("./gradlew assembleRelease", "./gradlew jibDockerBuild", "./gradlew bootBuildImage"):
        assert machine.verdict(command) == "allow", command


def test_groovy_build_scripts_and_configuration_time_commands(machine):
    machine.write({"gradlew": WRAPPER, "build.gradle": GROOVY})
    assert machine.verdict("./gradlew fmt") == "deny"  # 'git push --force origin master'.execute()
    assert machine.verdict("./gradlew cleanCaches") == "ask"  # rm -rf <unknown>/.gradle/caches
    assert machine.verdict("./gradlew lint") == "allow"
    # a command at the top of a build script runs while Gradle configures the build: whatever the task
    machine.write({"build.gradle": GROOVY + "\nexec { commandLine 'sh', '-c', 'rm -rf ~/' }\n"})
    decision = machine.judge("./gradlew lint")
    assert decision.verdict.value == "deny" and "build.gradle:18" in decision.reason


def test_subprojects_and_applied_scripts_are_read(machine):
    machine.write({"gradlew": WRAPPER, "settings.gradle.kts": 'include(":app", ":lib")\n',
                   "build.gradle.kts": 'apply(from = "gradle/release.gradle.kts")\n',
                   "app/build.gradle.kts": 'tasks.register<Exec>("seed") { commandLine("psql", "-c", "DROP TABLE users") }\n',
                   "gradle/release.gradle.kts": 'tasks.register<Exec>("tagRelease") { commandLine("git", "push", "-f", "origin", "main") }\n'})
    assert machine.verdict("./gradlew :app:seed") == "deny"
    assert machine.verdict("./gradlew tagRelease") == "deny"
    assert machine.verdict("./gradlew -p app seed") == "deny"  # the settings above app/ still define the build


def test_a_gradlew_that_is_not_gradles_wrapper_is_judged_as_the_script_it_is(machine):
    machine.write({"gradlew": "#!/bin/sh\nrm -rf ~/\n", "build.gradle.kts": ""})
    assert machine.verdict("./gradlew build") == "deny"
    machine.write({"gradlew": WRAPPER, "build.gradle.kts": KOTLIN})
    assert machine.verdict("sed -i 's/x/y/' build.gradle.kts && ./gradlew build") == "ask"  # changed before it runs


def test_maven_wrapper_goals(machine):
    assert machine.verdict("./mvnw deploy") == "ask"
    assert machine.verdict("./mvnw clean verify") == "allow"


def test_cmake_install_writes_where_its_prefix_says(machine):
    assert machine.verdict("cmake --install build --prefix ~/.local") == "ask"
    assert machine.verdict("cmake --install build --prefix /tmp/inst") == "allow"
    assert machine.verdict("cmake --install build --prefix ./stage") == "allow"
    assert machine.verdict("cmake --build build -j8") == "allow"
    # no prefix: the one the build was configured with
    machine.write({"build/CMakeCache.txt": "CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_INSTALL_PREFIX:PATH=/usr/local\n"})
    assert machine.verdict("cmake --install build") == "ask"
    assert machine.verdict("cmake --build build --target install") == "ask"
    machine.write({"build/CMakeCache.txt": f"CMAKE_INSTALL_PREFIX:PATH={machine.project}/dist\n"})
    assert machine.verdict("cmake --install build") == "allow"


def test_gradle_parsing(tmp_path):
    (tmp_path / "build.gradle.kts").write_text(KOTLIN)
    build = load_gradle(str(tmp_path), "<?>")
    assert build is not None
    [deploy] = build.tasks["deployDev"]
    assert deploy.depends == ["build"]
    assert deploy.commands == [(8, ["helm", "upgrade", "--install", "billing", "deploy/chart", "--set",
                                    "image.tag=<?>"])]
    assert build.tasks["nightly"][0].depends == ["syncUpstream"]
    assert build.tasks["wipeHome"][0].commands == [(18, ["rm", "-rf", "<?>"])]
    assert build.configuration == []
    assert abbreviation("dD", list(build.tasks)) == ["deployDev"]
    assert abbreviation("x", list(build.tasks)) == []


def test_a_package_runner_runs_the_tool_it_downloads_as_that_tool(machine):
    # npx / bunx / pnpm dlx / yarn dlx / bun x of a tool guardtui knows: the download asks, and what the tool
    # is asked to do is judged as the tool (a reset of the linked remote database denies)
    for runner in ("npx", "bunx", "pnpm dlx", "yarn dlx", "bun x", "npm exec --"):
        assert machine.verdict(f"{runner} supabase db reset --linked") == "deny", runner
        assert machine.verdict(f"{runner} supabase status") == "ask", runner  # still a download
    assert machine.verdict("npx supabase db reset") == "ask"  # the local dev database
    assert machine.verdict("pnpm dlx cowsay hi") == "ask"
