"""What the grader writes into a graded notebook and its feedback, in Japanese and in Korean.

Hidden-test verdicts are decided here, outside the learner's kernel, and are shown
in the language of the assignment (NN-topic-ja / NN-topic-ko). A key not defined
here is looked up in the learner package's messages, so a verdict can name the same
likely mistake the visible checks name.
"""
from pathlib import Path

from attn_course.messages import MESSAGES as COURSE_MESSAGES
from attn_course.messages import fill

MESSAGES = {
    "feedback_widget": {
        "ja": "ここには、動かして確かめるウィジェット（アテンションの探索など）が表示されます。自分のノートブックでこのセルを実行すると現れます。",
        "ko": "여기에는 직접 움직여 볼 수 있는 위젯(어텐션 탐색기 등)이 표시됩니다. 자신의 노트북에서 이 셀을 실행하면 나타납니다.",
    },
    "feedback_hidden_tests": {
        "ja": "# 隠しテスト（採点だけに使い、中身は公開しません）",
        "ko": "# 숨겨진 테스트(채점에만 쓰이며 내용은 공개하지 않습니다)",
    },
    "feedback_score": {"ja": "得点", "ko": "점수"},
    "feedback_test_cell": {"ja": "テストのセル", "ko": "테스트 셀"},
    "feedback_exercise": {"ja": "演習 {n}：{name}", "ko": "연습 문제 {n}: {name}"},
    "feedback_free_response": {"ja": "自由記述のコード", "ko": "자유 서술 코드"},
    "feedback_written": {"ja": "記述式の解答", "ko": "서술형 답안"},
    "feedback_task": {"ja": "課題", "ko": "과제"},
    "feedback_comment": {"ja": "コメント", "ko": "코멘트"},
    # nbgrader's automatic comment "No response." on an answer cell means that the cell is as it was released.
    "feedback_unchanged_answer": {
        "ja": "この解答のセルは、配布したときのままです（まだ書き換えられていません）。",
        "ko": "이 답안 셀은 배포한 그대로입니다(아직 고치지 않았습니다).",
    },
    "feedback_late": {"ja": "提出遅れの減点", "ko": "지각 제출 감점"},
    # The summary's late-penalty line: how late, and by which rule (late_penalty.describe).
    "feedback_late_line": {
        "ja": "{label}：{late}、{rule}（{score}: {points}）",
        "ko": "{label}: {late}, {rule} ({score}: {points})",
    },
    "late_days_hours": {"ja": "{d} 日 {h} 時間遅れ", "ko": "{d}일 {h}시간 늦음", "en": "{d} days and {h} hours late"},
    "late_days": {"ja": "{d} 日遅れ", "ko": "{d}일 늦음", "en": "{d} days late"},
    "late_hours_minutes": {"ja": "{h} 時間 {m} 分遅れ", "ko": "{h}시간 {m}분 늦음", "en": "{h} hours {m} minutes late"},
    "late_minutes": {"ja": "{m} 分遅れ", "ko": "{m}분 늦음", "en": "{m} minutes late"},
    "late_rule_per_day": {
        "ja": "1 日ごとに {percent}%（1 日に満たない遅れも 1 日と数えます）",
        "ko": "하루마다 {percent}%(하루가 안 되는 지각도 하루로 셉니다)",
    },
    "late_rule_grace": {
        "ja": "締め切りから {grace} 分までは遅れに数えません",
        "ko": "마감 후 {grace}분까지는 지각으로 세지 않습니다",
    },
    "late_rule_zero": {"ja": "締め切りを過ぎた提出は 0 点", "ko": "마감을 넘긴 제출은 0점"},
    "late_rule_other": {"ja": "このコースの規則による減点", "ko": "이 과정의 규칙에 따른 감점"},
    "feedback_top": {"ja": "先頭へ", "ko": "맨 위로"},
    # A figure the notebook drew (a plot, a heatmap), for a screen reader: nbconvert's own alt text is English.
    "feedback_figure_alt": {"ja": "ノートブックが描いた図", "ko": "노트북이 그린 그림"},
    "feedback_answer": {"ja": "あなたの解答", "ko": "내 답안"},
    "feedback_grade_cell": {"ja": "採点セル", "ko": "채점 셀"},
    "demo_skipped": {
        "ja": "（このセルは説明のためのもので、採点のときは実行していません。結果は自分のノートブックで確かめてください。）",
        "ko": "(이 셀은 설명을 위한 것이어서 채점할 때는 실행하지 않았습니다. 결과는 자기 노트북에서 확인하세요.)",
    },
    "demo_needs_exercise": {
        "ja": "このセルは、まだ手をつけていない演習 {n}（{name}）を使うので、実行できませんでした。",
        "ko": "이 셀은 아직 손대지 않은 연습 문제 {n}({name})의 코드를 쓰기 때문에 실행되지 않았습니다.",
    },
    "exercise_not_attempted": {
        "ja": "この演習には、まだ手がつけられていません（配布したときのままです）。",
        "ko": "이 연습 문제는 아직 손대지 않은 상태입니다(배포한 그대로입니다).",
    },
    "hidden_failed_label": {"ja": "隠しテスト不合格", "ko": "숨겨진 테스트 실패"},
    "hidden_failed_after_visible": {
        "ja": "上のチェックには合格しましたが、採点用の隠しテスト（別の入力）には合格しませんでした。",
        "ko": "위의 검사는 통과했지만, 채점용 숨겨진 테스트(다른 입력)는 통과하지 못했습니다.",
    },
    "hidden_failed_after_visible_grad": {
        "ja": "上のチェックには合格しましたが、採点用の隠しテストで、勾配が正しい値と一致しませんでした（出力の値ではなく、逆伝播の結果が違います）。",
        "ko": "위의 검사는 통과했지만, 채점용 숨겨진 테스트에서 기울기가 올바른 값과 일치하지 않았습니다(출력 값이 아니라 역전파 결과가 다릅니다).",
    },
    "hidden_failed_after_visible_trainable": {
        "ja": "上のチェックには合格しましたが、採点用の隠しテストで、返したモジュールのパラメータが学習できないことがわかりました（コピーの値ではなく、パラメータの設定が違います）。",
        "ko": "위의 검사는 통과했지만, 채점용 숨겨진 테스트에서 반환한 모듈의 파라미터를 학습할 수 없다는 것이 드러났습니다(복사한 값은 맞지만, 파라미터가 학습할 수 있는 상태가 아닙니다).",
    },
    "hidden_failed_after_visible_copy": {
        "ja": "上のチェックには合格しましたが、採点用の隠しテストで、コピー元のモジュールへの影響が見つかりました（コピーの値ではなく、元のモジュールとの関係が違います）。",
        "ko": "위의 검사는 통과했지만, 채점용 숨겨진 테스트에서 복사 원본 모듈에 대한 영향이 발견되었습니다(복사한 값이 아니라 원본 모듈과의 관계가 다릅니다).",
    },
    "hidden_failed_after_visible_answer": {
        "ja": "上のチェックには合格しましたが、採点では答えの値が正しくありませんでした（この答えは入力を受け取る関数ではなく値なので、正しい値とそのまま比べます。チェックのあとで値を変えたり、別のセルで同じ名前に別の値を入れたりしていないか確かめてください）。",
        "ko": "위의 검사는 통과했지만, 채점에서는 답의 값이 올바르지 않았습니다(이 답은 입력을 받는 함수가 아니라 값이므로 올바른 값과 그대로 비교합니다. 검사한 뒤에 값을 바꾸거나 다른 셀에서 같은 이름에 다른 값을 넣지 않았는지 확인하세요).",
    },
    "hidden_passed": {
        "ja": "✔ {name}: 隠しテストに合格しました。",
        "ko": "✔ {name}: 숨겨진 테스트를 통과했습니다.",
    },
    "hidden_mismatch": {
        "ja": "隠しテスト（{case}）: 参照実装と一致しません（最大誤差 {err:.3g}）。",
        "ko": "숨겨진 테스트({case}): 참조 구현과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hidden_grad_mismatch": {
        "ja": "隠しテスト（{case}）: 入力 {arg} についての勾配が参照実装と一致しません（最大誤差 {err:.3g}）。",
        "ko": "숨겨진 테스트({case}): 입력 {arg}에 대한 기울기가 참조 구현과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "hidden_dtype": {
        "ja": "隠しテスト（{case}）: 入力が {want} なのに出力が {got} になりました。途中で型を変えないでください。",
        "ko": "숨겨진 테스트({case}): 입력이 {want}인데 출력이 {got}입니다. 중간에 자료형을 바꾸지 마세요.",
    },
    "hidden_cache_shape": {
        "ja": "隠しテスト：{name} に {n} 個のトークンを渡したあとのキャッシュ (k, v) の形状は、どちらも (B, H, {n}, D) = {want} になるはずです（いまは {got}）。",
        "ko": "숨겨진 테스트: {name}에 토큰 {n}개를 넘긴 뒤 캐시 (k, v)의 모양은 둘 다 (B, H, {n}, D)여야 합니다. 기대한 모양은 {want}, 지금은 {got}입니다.",
    },
    # --- deciding a hidden test in the grader -----------------------------------
    "results_unreadable": {
        "ja": "隠しテスト: このセルの結果を読み取れませんでした（{why}）。採点では 0 点になります。",
        "ko": "숨겨진 테스트: 이 셀의 결과를 읽을 수 없었습니다({why}). 채점에서 0점이 됩니다.",
    },
    "hidden_by_hand": {
        "ja": "隠しテスト: {name} の中で {what} が呼ばれました。この演習は手で書く演習なので、採点でも不合格です。",
        "ko": "숨겨진 테스트: {name} 안에서 호출된 함수: {what}. 이 연습 문제는 직접 구현 연습 문제이므로 채점에서도 불합격입니다.",
    },
    "hidden_concat_refused": {
        "ja": "隠しテスト: {name} の中で {what} が呼ばれました。この演習ではキャッシュをつながずにバッファに書き込むので、採点でも不合格です。",
        "ko": "숨겨진 테스트: {name} 안에서 호출된 함수: {what}. 이 연습 문제에서는 캐시를 이어 붙이지 않고 버퍼에 쓰므로 채점에서도 불합격입니다.",
    },
    "hidden_todo": {"ja": "対処: {hint}", "ko": "해결 방법: {hint}"},
    "hidden_by_hand_threads": {
        "ja": "隠しテスト: {name} を実行している間、自分で起動したスレッドやプロセス（{what}）が動いていました。手で書く演習のコードは、ほかのスレッドやプロセスが動いていない状態で実行する決まりなので、採点でも不合格です。",
        "ko": "숨겨진 테스트: {name} 실행 중에 직접 시작한 스레드나 프로세스({what})가 돌고 있었습니다. 직접 구현 연습 문제의 코드는 다른 스레드나 프로세스에 계산을 맡기지 않고 실행해야 하므로, 채점에서도 불합격입니다.",
    },
    "hidden_by_hand_unproven": {
        "ja": "隠しテスト: 手で書く演習の結果に、ライブラリのアテンションを止めたまま {name} を実行したという記録がありません（講座のコードが書き換えられたか、止めるしくみが外されました）。",
        "ko": "숨겨진 테스트: 직접 구현 연습 문제의 결과에 라이브러리 어텐션을 막은 채로 한 {name} 실행 기록이 없습니다(강좌의 코드가 바뀌었거나 막는 코드가 꺼졌습니다).",
    },
    "hidden_by_hand_policy": {
        "ja": "隠しテスト: この演習のコードをたどると、{where}の {line} 行目 `{code}` で {what} が使われています。{why}決まりに反するため、採点ではこの演習は 0 点です。",
        "ko": "숨겨진 테스트: 이 연습 문제의 코드는 {where}의 {line}번 줄 `{code}`에서 {what}에 도달합니다. {why} 따라서 채점에서 이 연습 문제는 0점입니다.",
    },
    "hidden_by_hand_tamper": {
        "ja": "隠しテスト: {where}の {line} 行目 `{code}` は、手で書く演習の決まりを守らせるしくみを、演習の外から無効にできるコードです。{why}。そのコードが何をしたかは採点で確かめられないので、このノートブックの手で書く演習はすべて 0 点になります。",
        "ko": "숨겨진 테스트: {where}의 {line}번 줄(`{code}`)은 직접 구현 연습 문제의 규칙을 연습 문제 밖에서 무력화할 수 있는 코드입니다. {why}. 채점에서 그 코드가 무엇을 했는지 확인할 수 없으므로, 이 노트북의 직접 구현 연습 문제는 모두 0점이 됩니다.",
    },
    "hidden_by_hand_tamper_again": {
        "ja": "隠しテスト: 演習 {n} で説明したのと同じ理由で、この演習も 0 点です。",
        "ko": "숨겨진 테스트: 연습 문제 {n}에서 설명한 이유로 이 연습 문제도 0점입니다.",
    },
    "hidden_raised": {
        "ja": "隠しテスト: {name} を呼ぶとエラーになりました（{error}）。",
        "ko": "숨겨진 테스트: {name} 호출 중에 오류가 났습니다({error}).",
    },
    "why_no_results": {"ja": "結果が届いていません", "ko": "결과가 도착하지 않았습니다"},
    "why_extra_results": {
        "ja": "結果が {got} 個届きました。届くのは {want} 個のはずです",
        "ko": "결과가 {got}개 도착했습니다. {want}개여야 합니다",
    },
    "hidden_layout": {
        "ja": "隠しテスト: パラメータの名前や形状が参照実装と違います。参照: {want} / あなたのモジュール: {got}",
        "ko": "숨겨진 테스트: 파라미터의 이름이나 모양이 참조 구현과 다릅니다. 참조: {want} / 내 모듈: {got}",
    },
    "hidden_not_tuple": {
        "ja": "隠しテスト（{case}）: 値を{n}つ（タプルで）返すはずのところに、{kind} が返りました。",
        "ko": "숨겨진 테스트({case}): 값 {n}개를 튜플로 반환해야 합니다(지금은 {kind}).",
    },
    "hidden_not_tensor": {
        "ja": "隠しテスト（{case}）: torch.Tensor が返るはずのところに {kind} が返りました。",
        "ko": "숨겨진 테스트({case}): 반환값은 torch.Tensor여야 합니다(지금은 {kind}).",
    },
    "hidden_shape": {
        "ja": "隠しテスト（{case}）: 形状が違います。参照 {want} に対して {got} です。",
        "ko": "숨겨진 테스트({case}): 모양이 다릅니다. 참조 {want}, 실제 {got}.",
    },
    "hidden_device": {
        "ja": "隠しテスト（{case}）: 入力が {want} にあるのに、結果が {got} にできました。",
        "ko": "숨겨진 테스트({case}): 입력은 {want}에 있는데 결과가 {got}에 만들어졌습니다.",
    },
    "hidden_likely": {"ja": "考えられる原因: {hint}", "ko": "가능한 원인: {hint}"},
    "hidden_also": {"ja": "ほかにも: {hint}", "ko": "그 밖에도: {hint}"},
    "hidden_earlier_cause": {
        "ja": "この演習は、演習 {n} で書いた {name} を使っています。演習 {n} の隠しテストも不合格だったので、ここでの失敗はそこから来ている可能性があります。",
        "ko": "이 연습 문제는 연습 문제 {n}에서 작성한 코드({name})를 씁니다. 연습 문제 {n}의 숨겨진 테스트도 통과하지 못했으므로, 여기서의 실패는 거기서 온 것일 수 있습니다.",
    },
    # --- the class report for instructors (report.py) ------------------------------
    "report_title": {"ja": "クラスレポート：{title}", "ko": "수업 결과 보고서: {title}", "en": "Class report: {title}"},
    "report_index_title": {"ja": "クラスレポート", "ko": "수업 결과 보고서", "en": "Class report"},
    "report_intro": {
        "ja": "演習ごとに、満点の人数、どの誤りを何人がしたか（チェックが受講者に示すのと同じ診断を、採点側で一人ひとりの結果に当てはめたもの）、既知の誤りに当てはまらない誤りをした人数、手をつけていない人数を示します。",
        "ko": "연습 문제마다 만점을 받은 인원, 실수별로 그 실수를 한 인원, 알려진 실수에 해당하지 않는 오류를 낸 인원, 손대지 않은 인원을 보여 줍니다. 실수는 검사가 수강생에게 보여 주는 것과 같은 진단을 채점할 때 수강생 한 명 한 명의 결과에 적용해 가려낸 것입니다.",
        "en": "For each exercise: how many learners got full marks, which mistake how many made (the diagnosis the checks show learners, applied by the grader to each learner's results), how many made a mistake no known one explains, and how many left it untouched.",
    },
    "report_learners": {"ja": "採点した受講者：{n} 人", "ko": "채점한 수강생: {n}명", "en": "Learners graded: {n}"},
    "report_not_graded": {
        "ja": "採点できなかった提出：{n} 件（grade.py の出力を見てください）",
        "ko": "채점하지 못한 제출: {n}건(grade.py의 출력을 확인하세요)",
        "en": "Submissions that could not be graded: {n} (see grade.py's output)",
    },
    # Of the notebooks graded, before late penalties and overrides: what a lesson's page is about is the work handed in
    # (an instructor read it as the class's grades); the grades are grades.csv's and each learner's page.
    "report_median": {"ja": "中央値（提出されたノートブックの得点、遅れの減点前）", "ko": "중앙값(제출된 노트북의 점수, 지각 감점 전)",
                      "en": "Median (of the notebooks handed in, before late penalties)"},
    "report_mean": {"ja": "平均", "ko": "평균", "en": "Mean"},
    "report_out_of": {"ja": "{score} / {total} 点", "ko": "{score} / {total}점", "en": "{score} / {total} points"},
    "report_distribution": {"ja": "クラス全体の得点の分布", "ko": "수강생 전체의 점수 분포", "en": "The class's scores"},
    "report_score_axis": {"ja": "得点（{total} 点満点）", "ko": "점수({total}점 만점)", "en": "Score (out of {total})"},
    "report_count_axis": {"ja": "人数", "ko": "인원", "en": "Learners"},
    "report_exercise": {"ja": "演習", "ko": "연습 문제", "en": "Exercise"},
    "report_points": {"ja": "{points} 点", "ko": "{points}점", "en": "{points} points"},
    "report_full_marks": {"ja": "満点", "ko": "만점", "en": "Full marks"},
    "report_unknown": {"ja": "既知の誤りに当てはまらない誤り", "ko": "알려진 실수에 해당하지 않는 오류", "en": "A mistake no known one explains"},
    "report_by_hand_reach": {
        "ja": "手で書く演習の決まり：演習のコードが、使えないもの（ライブラリのアテンションなど）を使っていた",
        "ko": "직접 구현 연습 문제의 규칙: 연습 문제의 코드가 쓸 수 없는 것(라이브러리가 제공하는 어텐션 등)을 썼음",
        "en": "By-hand rule: the exercise's code used something it may not (a library's attention, for instance)",
    },
    "report_by_hand_tamper": {
        "ja": "手で書く演習の決まり：どこかのセルに、決まりを守らせるしくみを無効にできるコードがあった（手で書く演習すべてが 0 点）",
        "ko": "직접 구현 연습 문제의 규칙: 어느 셀에 규칙을 무력화할 수 있는 코드가 있었음(직접 구현 연습 문제 모두 0점)",
        "en": "By-hand rule: a cell had code that can switch off what enforces the rule (every by-hand exercise scores 0)",
    },
    "report_by_hand_threads": {
        "ja": "手で書く演習の決まり：実行中に、受講者が自分で起動したスレッドやプロセスが動いていた",
        "ko": "직접 구현 연습 문제의 규칙: 실행 중에 수강생 코드가 시작한 스레드나 프로세스가 돌고 있었음",
        "en": "By-hand rule: a thread or process the learner started was running",
    },
    "report_not_attempted": {"ja": "未着手（配布時のまま）", "ko": "손대지 않음(배포한 그대로)", "en": "Not attempted (as released)"},
    "report_mistake": {"ja": "誤り {n}", "ko": "실수 {n}", "en": "Mistake {n}"},
    "report_outcome": {"ja": "結果", "ko": "결과", "en": "Outcome"},
    "report_hint_shown": {"ja": "受講者に表示したヒント", "ko": "수강생에게 보여 준 힌트", "en": "Hint shown to the learner"},
    "report_names": {"ja": "受講者", "ko": "수강생", "en": "Learner"},
    "report_most_common": {"ja": "最も多かった誤り", "ko": "가장 많았던 실수", "en": "Most common mistake"},
    "report_none": {"ja": "（なし）", "ko": "(없음)", "en": "(none)"},
    "report_lesson": {"ja": "回", "ko": "강의", "en": "Lesson"},
    "report_language": {"ja": "日本語", "ko": "한국어", "en": "English"},
    "report_in_exercise": {"ja": "（{exercise}）", "ko": "({exercise})", "en": "({exercise})"},
    "report_hint_key": {"ja": "ヒントのキー", "ko": "힌트 키", "en": "Hint key"},
    "report_class_size": {"ja": "採点した人数", "ko": "채점한 인원", "en": "Learners graded"},
    "report_of_n": {"ja": "（{n} 人）", "ko": "({n}명)", "en": " (n = {n})"},
    "report_people_of": {"ja": "{size} 人中 {n} 人", "ko": "{size}명 중 {n}명", "en": "{n} of {size}"},
    "report_most_common_tied": {"ja": "最も多かった誤り（同数）", "ko": "가장 많았던 실수(동률)", "en": "Most common mistakes (tied)"},
    "report_learners_heading": {"ja": "受講者ごとの結果", "ko": "수강생별 결과", "en": "Each learner"},
    "report_learner": {"ja": "受講者 {k}", "ko": "수강생 {k}", "en": "Learner {k}"},
    "report_score": {"ja": "得点", "ko": "점수", "en": "Score"},
    "report_named_mistake": {"ja": "既知の誤り", "ko": "알려진 실수", "en": "Known mistake"},
    # A failure carried over from an earlier exercise (verdict.carried_from): counted once, where it was made.
    "report_carried": {"ja": "演習 {n} の誤りによる失敗（演習 {n} の側で数えます）",
                       "ko": "연습 문제 {n}의 실수 때문에 생긴 실패(감점은 연습 문제 {n}에서 한 번만 합니다)",
                       "en": "Came from exercise {n}'s mistake (counted in exercise {n})"},
    "report_carried_short": {"ja": "演習 {n} の誤りによる", "ko": "연습 문제 {n}에서 이어짐", "en": "From exercise {n}"},
    "report_not_graded_cell": {"ja": "未採点", "ko": "채점되지 않음", "en": "Not graded"},
    # The index's columns in the instructor's language (ClassReport.language): the learners' language, named.
    "report_language_ja": {"ja": "日本語", "ko": "일본어", "en": "Japanese"},
    "report_language_ko": {"ja": "韓国語", "ko": "한국어", "en": "Korean"},
    # An exercise's hint where the hint has no text in the report's language: said in the learners' language.
    "report_hint_in": {
        "ja": "（受講者の言語の{lang}で表示）", "ko": "(수강생의 언어: {lang})", "en": " (in the learner's language: {lang})",
    },
    # --- overrides (overrides.py) and formgrader's manual grades ----------------------------
    "report_override": {
        "ja": "教員が定めた得点：{score} / {total} 点（理由：{reason}、日時：{time}）",
        "ko": "교수자가 정한 점수: {score} / {total}점(사유: {reason} / {time})",
        "en": "Set by the instructor: {score} / {total} points (reason: {reason}; {time})",
    },
    "report_override_short": {"ja": "教員が変更", "ko": "교수자가 변경", "en": "overridden"},
    "report_reason_elsewhere": {
        "ja": "受講者 ID 入りのレポート（report-names/）に記載",
        "ko": "수강생 ID가 들어간 보고서(report-names/)에 적혀 있음",
        "en": "in the report with learners' ids (report-names/)",
    },
    "report_manual": {
        "ja": "formgrader で手入力した得点（採点プログラムの得点は {auto}）{comment}",
        "ko": "formgrader에서 직접 입력한 점수(채점 프로그램의 점수는 {auto}){comment}",
        "en": "entered by hand in formgrader (the grader gave {auto}){comment}",
    },
    # --- a learner across every lesson (report_history.py, history.py) -------------------------
    "history_link": {"ja": "受講者ごとの全回の記録", "ko": "수강생별 전체 강의 기록", "en": "Each learner across all lessons"},
    "history_title": {"ja": "{learner}：全回の記録", "ko": "{learner}: 전체 강의 기록", "en": "{learner}: every lesson"},
    "history_counts": {"ja": "成績に反映される得点：{score}（{status}）", "ko": "성적에 반영되는 점수: {score}({status})",
                       "en": "Counts: {score} ({status})"},
    "history_when": {"ja": "日時（UTC）", "ko": "일시(UTC)", "en": "When (UTC)"},
    "history_event": {"ja": "内容", "ko": "내용", "en": "Event"},
    "history_submitted": {"ja": "提出日時（UTC）", "ko": "제출 일시(UTC)", "en": "Submitted (UTC)"},
    "history_late": {"ja": "遅れ", "ko": "지각 여부", "en": "Late"},
    "history_before": {"ja": "減点前の得点", "ko": "감점 전 점수", "en": "Before the penalty"},
    "history_penalty": {"ja": "遅れによる減点", "ko": "지각 감점", "en": "Late penalty"},
    "history_after": {"ja": "減点後の得点", "ko": "감점 후 점수", "en": "After the penalty"},
    "history_flags": {"ja": "確認が必要な点（flags.csv）", "ko": "확인할 점(flags.csv)", "en": "Flags (flags.csv)"},
    "history_graded": {"ja": "採点", "ko": "채점", "en": "graded"},
    "history_resubmitted": {"ja": "再提出を採点", "ko": "다시 제출한 것을 채점", "en": "resubmission graded"},
    "history_regraded": {"ja": "同じ提出を再採点", "ko": "같은 제출을 다시 채점", "en": "same submission regraded"},
    "history_not_graded": {"ja": "採点できなかった", "ko": "채점하지 못함", "en": "could not be graded"},
    "history_override_set": {"ja": "教員が得点を {score} に変更：{reason}", "ko": "교수자가 점수를 {score}점으로 변경: {reason}",
                             "en": "instructor set the score to {score}: {reason}"},
    "history_override_removed": {"ja": "教員が変更を取り消し：{reason}", "ko": "교수자가 변경을 취소함: {reason}",
                                 "en": "instructor removed the override: {reason}"},
    "history_on_time": {"ja": "遅れなし", "ko": "기한 내", "en": "on time"},
    "history_no_due": {"ja": "締め切りなし", "ko": "마감 없음", "en": "no due date"},
    "history_not_judged": {
        "ja": "判定できず（timestamp.txt なし）", "ko": "판단하지 않음(timestamp.txt 없음)",
        "en": "not judged (no timestamp.txt)",
    },
    "history_status_graded": {"ja": "採点済み", "ko": "채점됨", "en": "graded"},
    "history_status_missing": {"ja": "未提出のため 0 点", "ko": "미제출이라 0점", "en": "not handed in: 0"},
    "history_status_not_graded": {"ja": "採点できず", "ko": "채점하지 못함", "en": "not graded"},
    # --- flags.csv's explanation column, by rule (flags.py) ------------------------------------
    "flag_no_isolation": {
        "ja": "受講者のコードを隔離せずに採点しました。受講者のコードがほかの受講者の提出を読めた可能性があります。",
        "ko": "수강생 코드를 격리하지 않고 채점했습니다. 수강생 코드가 다른 수강생의 제출물을 읽을 수 있는 상태였습니다.",
        "en": "Graded without a sandbox per learner: a learner's code could have read other learners' work.",
    },
    "flag_not_graded": {
        "ja": "採点できませんでした。成績の欄は空けてあります（code 列は採点時のエラーの末尾）。",
        "ko": "채점하지 못했습니다. 성적 칸은 비워 두었습니다(code 열에는 채점 중에 난 오류의 끝부분이 들어 있습니다).",
        "en": "Could not be graded; its grade is left blank (the code column is the end of the error).",
    },
    "flag_no_timestamp": {
        "ja": "timestamp.txt がないため、締め切りに遅れたかどうかを判定していません。",
        "ko": "timestamp.txt가 없어서 마감을 넘겼는지 판단하지 않았습니다.",
        "en": "No timestamp.txt, so whether it was late was not judged.",
    },
    "flag_timestamp_no_zone": {
        "ja": "timestamp.txt の時刻にタイムゾーンが書かれていないため、UTC として読みました（東京やソウルの時刻なら 9 時間ずれます）。\"2026-12-09 10:30:00 Asia/Tokyo\" のようにタイムゾーンを書いて、採点し直してください。",
        "ko": "timestamp.txt의 시각에 시간대가 적혀 있지 않아 UTC로 읽었습니다(도쿄나 서울 시각이라면 9시간 어긋납니다). \"2026-12-09 10:30:00 Asia/Seoul\"처럼 시간대를 적고 다시 채점하세요.",
        "en": "timestamp.txt gives no time zone, so its time was read as UTC (nine hours off for Tokyo or Seoul). Write the zone, e.g. \"2026-12-09 10:30:00 Asia/Tokyo\", and grade again.",
    },
    "flag_same_as_solution": {
        "ja": "code 列の解答セルが、公開されている解答と同じコードです（名前・空白・コメント・関数の並びの違いは無視して比べています）。点数は変えていません。本人の解答かどうか、確かめる目安にしてください。",
        "ko": "code 열의 답안 셀이 공개된 정답과 같은 코드입니다(이름·공백·주석·함수 순서의 차이는 무시하고 비교했습니다). 점수는 바꾸지 않았습니다. 본인이 쓴 답인지 확인할 때 참고하세요.",
        "en": "The solution cells in the code column are the same code as the published solution (names, spacing, comments and the order of functions set aside). The score is unchanged: a hint for a look, not a verdict.",
    },
    "flag_same_as_learner": {
        "ja": "code 列の解答セルが、そこに挙げた別の受講者の解答と同じコードです（名前・空白・コメント・関数の並びの違いは無視して比べています）。点数は変えていません。確かめる目安にしてください。",
        "ko": "code 열의 답안 셀이 거기 적힌 다른 수강생의 답안과 같은 코드입니다(이름·공백·주석·함수 순서의 차이는 무시하고 비교했습니다). 점수는 바꾸지 않았습니다. 확인할 때 참고하세요.",
        "en": "The solution cells in the code column are the same code as the other learner's named there (names, spacing, comments and the order of functions set aside). The score is unchanged: a hint for a look, not a verdict.",
    },
    "flag_lms_left_out": {
        "ja": "Moodle 用のファイルに入れていません。nbgrader の受講者表で、この受講者の、Moodle が受講者を見分けるための欄が空です（どの欄かは code 列にあります。email ならメールアドレス、lms_user_id なら LMS の ID）。Moodle の取り込みは見つからない受講者が1人でもいるとそこで止まるため、ファイルから外しました。students.csv に書き足し、nbgrader db student import students.csv を実行してから、make export LMS=moodle をもう一度実行してください。",
        "ko": "Moodle용 파일에 들어 있지 않습니다. Moodle이 수강생을 구별하는 항목(code 열: email이면 이메일 주소, lms_user_id이면 LMS ID)이 nbgrader 수강생 목록에 없기 때문입니다. Moodle은 찾을 수 없는 수강생이 있으면 가져오기를 멈추므로 이 수강생을 뺐습니다. 이 항목을 students.csv에 추가하고 nbgrader db student import students.csv를 실행한 뒤 make export LMS=moodle을 다시 실행하세요.",
        "en": "Not in the Moodle file: nbgrader's student table lacks the field Moodle identifies learners by (the code column: email, or lms_user_id), and Moodle's import stops at a user it cannot find. Add it to students.csv, run nbgrader db student import students.csv, then make export LMS=moodle again.",
    },
    "flag_files": {
        "ja": "ファイルを一覧したり消したりするコード、または採点用のフォルダやファイルを名指しするコードです（正しい解答には要りません。図やメモを保存するだけのセルはここに入りません）。",
        "ko": "파일 목록을 읽거나 파일을 지우는 코드, 또는 채점용 폴더나 파일을 가리키는 코드입니다(올바른 답안에는 필요 없습니다. 그림이나 메모를 저장하기만 하는 셀은 여기에 해당하지 않습니다).",
        "en": "Code that lists or removes files, or names the grader's folders or files (no right answer needs it; a cell that only saves a figure or a note is not flagged).",
    },
    "flag_process": {
        "ja": "プロセスやシグナル、スレッドを扱うコードです（正しい解答には要りません）。",
        "ko": "프로세스나 시그널, 스레드를 다루는 코드입니다(올바른 답안에는 필요 없습니다).",
        "en": "Code that handles processes, signals or threads (no right answer needs it).",
    },
    "flag_network": {
        "ja": "ネットワークに接続するコードです。",
        "ko": "네트워크에 접속하는 코드입니다.",
        "en": "Code that reaches the network.",
    },
    "flag_environment": {
        "ja": "環境変数を読むコードです（採点中かどうかを見分けようとしている可能性があります）。",
        "ko": "환경 변수를 읽는 코드입니다(채점 중인지 알아내려는 것일 수 있습니다).",
        "en": "Code that reads environment variables (perhaps to tell whether it is being graded).",
    },
    "flag_fake_equality": {
        "ja": "比較の結果をごまかせるコードです（テンソルの比較演算や型を書き換えるもの）。",
        "ko": "비교 결과를 속일 수 있는 코드입니다(__eq__ 등 텐서 비교 연산의 재정의나 텐서 서브클래스).",
        "en": "Code that can fake a comparison (tensor equality or a changed type).",
    },
    "flag_kernel": {
        "ja": "カーネルのエラー表示や出力のしくみを書き換えるコードです。",
        "ko": "커널의 오류 표시나 출력 방식을 바꾸는 코드입니다.",
        "en": "Code that changes how the kernel shows errors or output.",
    },
    "flag_reach": {
        "ja": "手で書く演習で、使えないもの（ライブラリのアテンションなど）を使っています。",
        "ko": "직접 구현 연습 문제에서 쓸 수 없는 것(라이브러리가 제공하는 어텐션 등)을 썼습니다.",
        "en": "A by-hand exercise uses something it may not (a library's attention, for instance).",
    },
    "flag_tamper": {
        "ja": "手で書く演習の決まりを守らせるしくみを無効にできるコードです（手で書く演習すべてが 0 点）。",
        "ko": "직접 구현 연습 문제의 규칙을 무력화할 수 있는 코드입니다(직접 구현 연습 문제 모두 0점).",
        "en": "Code that can switch off what enforces the by-hand rule (every by-hand exercise scores 0).",
    },
    "flag_other": {
        "ja": "rule 列の規則に当てはまるコードです。内容を確認してください。",
        "ko": "rule 열의 규칙을 보고 확인해 주세요.",
        "en": "Have a look (the rule column's rule).",
    },
}


def text(key: str, lang: str, /, **fields) -> str:
    # key and lang positional-only: a message may have a field named key (why_missing_value's {key}), which
    # otherwise clashed with the parameter (TypeError: got multiple values for argument 'key'; make mutants).
    entry = MESSAGES.get(key) or COURSE_MESSAGES[key]
    return fill(entry[lang], lang, **fields)


def assignment_language(assignment: str) -> str:
    """Assignments are named NN-topic-ja / NN-topic-ko."""
    return "ko" if assignment.endswith("-ko") else "ja"


# The instructor's language for the class report, the learners' pages and flags.csv's explanations: "ja", "ko" or
# "en", from ATTN_REPORT_LANG (make autograde REPORT_LANG=ko) or nbgrader_config.py's ClassReport.language.
REPORT_LANGS = ("ja", "ko", "en")


def instructor_language(course=None) -> str | None:
    """The language the instructor chose, or None: each lesson's report then in its learners' language."""
    import os
    lang = os.environ.get("ATTN_REPORT_LANG", "")
    if not lang and course is not None and (Path(course) / "nbgrader_config.py").exists():
        from traitlets.config.loader import PyFileConfigLoader
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
        lang = config.ClassReport.get("language", "") if "ClassReport" in config else ""
    if lang and lang not in REPORT_LANGS:
        raise ValueError(f"ClassReport.language / ATTN_REPORT_LANG is {lang!r}: one of {', '.join(REPORT_LANGS)}")
    return lang or None


def lesson_of(assignment: str) -> str:
    """03-masks-ja -> 03-masks (an id without a language is the lesson's)."""
    stem, _, lang = assignment.rpartition("-")
    return stem if lang in ("ja", "ko") else assignment
