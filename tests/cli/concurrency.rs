//! No lost update: mcpctl processes writing one file at the same moment, and a foreign
//! program replacing that file by rename meanwhile. Bounded by iteration counts, never
//! by time; nothing here asserts how long anything takes.

use std::path::Path;
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};

use crate::env::TestEnv;

const CURSOR: &str = ".cursor/mcp.json";

fn names(env: &TestEnv) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&env.read(CURSOR)).unwrap();
    doc["mcpServers"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect()
}

/// On Windows (issue 37) this found that one add now and then could not replace
/// `state/ledger.json` while another mcpctl had it open ("Access denied"): renames wait
/// for such a handle now (`fs::swap::while_shared`).
#[test]
fn parallel_adds_of_different_names_keep_every_entry() {
    let env = TestEnv::new();
    env.write(CURSOR, b"{\n  \"mcpServers\": {}\n}\n");
    let per_adder = 25;
    std::thread::scope(|s| {
        for adder in ["a", "b", "c"] {
            let env = &env;
            s.spawn(move || {
                for i in 0..per_adder {
                    let name = format!("{adder}{i}");
                    env.run(&["add", &name, "-c", "cursor", "--", "npx", "-y", "pkg"])
                        .ok();
                }
            });
        }
    });
    let found = names(&env);
    assert_eq!(found.len(), 3 * per_adder, "lost entries: {found:?}");
    assert_eq!(leftovers(&env.path(".cursor")), Vec::<String>::new());
}

/// A careful foreign writer, as a client that rewrites the file by write-temp-then-rename
/// would be if it never lost an update itself: read, append the next number to
/// `"foreign"`, write a temp, exchange it in, and if what came out is not the version it
/// read, exchange back and try again. mcpctl must never make one of its numbers vanish.
#[cfg(target_os = "linux")]
fn foreign_writer(path: &Path, stop: &AtomicBool) -> u64 {
    use std::ffi::CString;
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;

    let temp = path.with_file_name(".mcp.json.foreign");
    let c_temp = CString::new(temp.as_os_str().as_bytes()).unwrap();
    let c_path = CString::new(path.as_os_str().as_bytes()).unwrap();
    let exchange = || {
        // SAFETY: two valid C paths.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                c_temp.as_ptr(),
                libc::AT_FDCWD,
                c_path.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
    };
    let mut written = 0;
    let mut round = 0u64;
    while !stop.load(Ordering::SeqCst) {
        round += 1;
        let mut file = std::fs::File::open(path).unwrap();
        let read_ino = file.metadata().unwrap().ino();
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        doc["foreign"]
            .as_array_mut()
            .unwrap()
            .push((written + 1).into());
        std::fs::write(&temp, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        let ours_ino = std::fs::metadata(&temp).unwrap().ino();
        exchange();
        if std::fs::metadata(&temp).unwrap().ino() == read_ino {
            written += 1;
        } else {
            // Someone replaced the file after we read it: put theirs back.
            exchange();
            assert_eq!(
                std::fs::metadata(&temp).unwrap().ino(),
                ours_ino,
                "a third writer in the test"
            );
        }
        std::fs::remove_file(&temp).unwrap();
        // Vary the phase against mcpctl's writes.
        std::thread::sleep(std::time::Duration::from_millis(15 + (round % 5) * 5));
    }
    written
}

#[cfg(target_os = "linux")]
#[test]
fn two_adders_and_a_foreign_rename_writer_lose_nothing() {
    let env = TestEnv::new();
    let path = env.write(CURSOR, b"{\n  \"mcpServers\": {},\n  \"foreign\": []\n}\n");
    let per_adder = 100;
    let stop = AtomicBool::new(false);
    let (foreign, failures) = std::thread::scope(|s| {
        let writer = s.spawn(|| foreign_writer(&path, &stop));
        let adders: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|adder| {
                let env = &env;
                s.spawn(move || {
                    (0..per_adder)
                        .filter_map(|i| {
                            let name = format!("{adder}{i}");
                            let add = ["add", &name, "-c", "cursor", "--", "npx", "-y", "pkg"];
                            // On a machine so loaded that the foreign writer outpaces every
                            // attempt for 10 s, mcpctl gives up writing (exit 2, nothing
                            // lost); a script would run it again, and so does this one.
                            let mut run = env.run(&add);
                            for _ in 0..5 {
                                if !(run.code == 2 && run.stdout.contains("kept changing")) {
                                    break;
                                }
                                run = env.run(&add);
                            }
                            (run.code != 0)
                                .then(|| format!("exit {}: {}{}", run.code, run.stdout, run.stderr))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // Join without panicking first: the writer must hear `stop` whatever happened.
        let failures: Vec<_> = adders.into_iter().map(|a| a.join()).collect();
        stop.store(true, Ordering::SeqCst);
        (writer.join().unwrap(), failures)
    });
    for failure in failures {
        assert_eq!(failure.unwrap(), Vec::<String>::new(), "an add failed");
    }
    let doc: serde_json::Value = serde_json::from_slice(&env.read(CURSOR)).unwrap();
    let found = names(&env);
    assert_eq!(found.len(), 2 * per_adder, "lost mcpctl entries: {found:?}");
    let numbers: Vec<u64> = doc["foreign"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(foreign > 0, "the foreign writer never wrote");
    assert_eq!(
        numbers,
        (1..=foreign).collect::<Vec<_>>(),
        "the foreign writer's updates were overwritten"
    );
    assert_eq!(leftovers(&env.path(".cursor")), Vec::<String>::new());
}

/// SIGTERM at varying moments of a big write: the file is always the old or the new
/// version, and no multi-MB temp is left beside it.
#[cfg(unix)]
#[test]
fn killed_mid_write_leaves_old_or_new_file_and_no_temp() {
    let env = TestEnv::new();
    let history: Vec<String> = (0..60_000)
        .map(|i| format!("prompt {i} with some text to make the file big"))
        .collect();
    let doc = serde_json::json!({"mcpServers": {}, "history": history});
    let original = serde_json::to_vec_pretty(&doc).unwrap();
    env.write(CURSOR, &original);
    for round in 0..12u64 {
        let name = format!("n{round}");
        let mut child = env
            .command(&["add", &name, "-c", "cursor", "--", "npx", "-y", "pkg"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2 + round * 4));
        // SAFETY: the child is ours and still unreaped.
        unsafe {
            libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
        }
        child.wait().unwrap();
        let now: serde_json::Value = serde_json::from_slice(&env.read(CURSOR)).unwrap();
        assert_eq!(now["history"].as_array().unwrap().len(), 60_000);
        assert_eq!(
            leftovers(&env.path(".cursor")),
            Vec::<String>::new(),
            "round {round}"
        );
    }
}

/// `remove` decides the scope from a read made before it takes the lock and starts its
/// edit from that read (no second parse of a big file). That read may be stale by the time
/// it writes: the foreign writer's updates and the other remover's removals must survive.
#[cfg(target_os = "linux")]
#[test]
fn two_removers_and_a_foreign_rename_writer_lose_nothing() {
    let env = TestEnv::new();
    let per_remover = 40;
    let mut servers = serde_json::Map::new();
    for remover in ["a", "b"] {
        for i in 0..per_remover {
            servers.insert(
                format!("{remover}{i}"),
                serde_json::json!({"command": "npx", "args": ["-y", "pkg"]}),
            );
        }
    }
    servers.insert("keep".into(), serde_json::json!({"command": "keep"}));
    let doc = serde_json::json!({"mcpServers": servers, "foreign": []});
    let path = env.write(CURSOR, &serde_json::to_vec_pretty(&doc).unwrap());
    let stop = AtomicBool::new(false);
    let (foreign, failures) = std::thread::scope(|s| {
        let writer = s.spawn(|| foreign_writer(&path, &stop));
        let removers: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|remover| {
                let env = &env;
                s.spawn(move || {
                    (0..per_remover)
                        .filter_map(|i| {
                            let name = format!("{remover}{i}");
                            let remove = ["remove", &name, "-c", "cursor"];
                            let mut run = env.run(&remove);
                            for _ in 0..5 {
                                if !(run.code == 2 && run.stdout.contains("kept changing")) {
                                    break;
                                }
                                run = env.run(&remove);
                            }
                            (run.code != 0)
                                .then(|| format!("exit {}: {}{}", run.code, run.stdout, run.stderr))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let failures: Vec<_> = removers.into_iter().map(|r| r.join()).collect();
        stop.store(true, Ordering::SeqCst);
        (writer.join().unwrap(), failures)
    });
    for failure in failures {
        assert_eq!(failure.unwrap(), Vec::<String>::new(), "a remove failed");
    }
    let doc: serde_json::Value = serde_json::from_slice(&env.read(CURSOR)).unwrap();
    assert_eq!(
        names(&env),
        vec!["keep".to_owned()],
        "an entry came back or was lost"
    );
    let numbers: Vec<u64> = doc["foreign"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(foreign > 0, "the foreign writer never wrote");
    assert_eq!(
        numbers,
        (1..=foreign).collect::<Vec<_>>(),
        "the foreign writer's updates were overwritten"
    );
    assert_eq!(leftovers(&env.path(".cursor")), Vec::<String>::new());
}
