"""Every sentence a learner can see from Python code, in Japanese and in Korean.

Prose lives in the lesson sources; this module holds what code prints or raises:
check results, hints, errors, widget labels and figure text. Terms follow
lessons/GLOSSARY.md, which tests/test_language.py enforces.
"""

LANGUAGES = ("ja", "ko")
_current = "ja"

MESSAGES = {
    # --- set-up -------------------------------------------------------------
    "setup_done": {
        "ja": "準備ができました。言語: 日本語 / 計算デバイス: {device} / torch {torch}",
        "ko": "준비가 끝났습니다. 언어: 한국어 / 연산 장치: {device} / torch {torch}",
    },
    "bad_language": {
        "ja": "言語は 'ja' か 'ko' を指定してください（受け取った値: {lang!r}）。",
        "ko": "언어는 'ja' 또는 'ko'로 지정하세요(받은 값: {lang!r}).",
    },
    # --- feedback pages (written by tools/grade.py from nbgrader's English template) ---
    "feedback_hidden_tests": {
        "ja": "# 隠しテスト（採点だけに使い、中身は公開しません）",
        "ko": "# 숨겨진 테스트(채점에만 쓰이며 내용은 공개하지 않습니다)",
    },
    "feedback_score": {"ja": "得点", "ko": "점수"},
    "feedback_test_cell": {"ja": "テストのセル", "ko": "테스트 셀"},
    "feedback_free_response": {"ja": "自由記述のコード", "ko": "자유 서술 코드"},
    "feedback_written": {"ja": "記述式の解答", "ko": "서술형 답안"},
    "feedback_task": {"ja": "課題", "ko": "과제"},
    "feedback_comment": {"ja": "コメント", "ko": "코멘트"},
    "feedback_late": {"ja": "提出遅れの減点", "ko": "지각 제출 감점"},
    "feedback_top": {"ja": "先頭へ", "ko": "맨 위로"},
    "feedback_answer": {"ja": "あなたの解答", "ko": "내 답안"},
    "feedback_grade_cell": {"ja": "採点セル", "ko": "채점 셀"},
    # --- how a failed check is shown -----------------------------------------
    "check_failed": {"ja": "チェック不合格", "ko": "검사 실패"},
    "bad_input": {"ja": "入力エラー", "ko": "입력 오류"},
    "hint": {"ja": "ヒント", "ko": "힌트"},
    "passed": {
        "ja": "✔ {name}: すべてのチェックに合格しました。",
        "ko": "✔ {name}: 모든 검사를 통과했습니다.",
    },
    "hidden_passed": {
        "ja": "✔ {name}: 隠しテストに合格しました。",
        "ko": "✔ {name}: 숨겨진 테스트를 통과했습니다.",
    },
    # --- input validation (helpers, reference and learner modules) -----------
    "not_tensor": {
        "ja": "{name} には torch.Tensor を渡してください（渡されたのは {kind} です）。",
        "ko": "{name}에는 torch.Tensor를 넘겨야 합니다(받은 타입: {kind}).",
    },
    "wrong_rank": {
        "ja": "{name} は {want} 次元のテンソル {layout} を想定していますが、渡されたのは {got} 次元（形状 {shape}）です。",
        "ko": "{name}의 차원 수가 맞지 않습니다. 기대: {want}차원 텐서 {layout} / 받은 것: {got}차원(모양 {shape})",
    },
    "embed_mismatch": {
        "ja": "入力の最後の軸（埋め込み次元 E）は {want} のはずですが {got} でした（形状 {shape}）。モジュールを作ったときの embed_dim と入力が合っていません。",
        "ko": "입력의 마지막 축(임베딩 차원 E)은 {want}여야 하는데 {got}입니다(모양 {shape}). 모듈을 만들 때 준 embed_dim과 입력이 맞지 않습니다.",
    },
    "qk_dim_mismatch": {
        "ja": "Q と K の最後の軸（d_k）がそろっていません: Q は {dq}、K は {dk} です。内積をとるには同じ次元のベクトルが必要です。",
        "ko": "Q와 K의 마지막 축(d_k)이 맞지 않습니다: Q는 {dq}, K는 {dk}입니다. 내적을 하려면 두 벡터의 차원이 같아야 합니다.",
    },
    "kv_len_mismatch": {
        "ja": "K と V の系列長がそろっていません: K は {tk}、V は {tv} です。キーとバリューは同じトークンから作られるので、個数は同じはずです。",
        "ko": "K와 V의 시퀀스 길이가 맞지 않습니다: K는 {tk}, V는 {tv}입니다. 키와 밸류는 같은 토큰에서 만들어지므로 개수가 같아야 합니다.",
    },
    "batch_mismatch": {
        "ja": "バッチの軸がそろっていません: {shapes}。",
        "ko": "배치 축이 맞지 않습니다: {shapes}.",
    },
    "bad_size": {
        "ja": "{name} には正の整数を指定してください（指定された値：{value!r}）。",
        "ko": "{name}에는 양의 정수를 넣어야 합니다(받은 값: {value!r}).",
    },
    "tokens_mismatch": {
        "ja": "トークンの数（{n}）と重みの行列の大きさ（{t}×{t}）が合っていません。",
        "ko": "토큰 수({n})와 가중치 행렬의 크기({t}×{t})가 맞지 않습니다.",
    },
    # --- diagnosis of a learner's function ---------------------------------
    "raised": {
        "ja": "{name} を呼ぶとエラーになりました: {error}",
        "ko": "{name}을(를) 호출하자 오류가 났습니다: {error}",
    },
    "not_implemented": {
        "ja": "{name} はまだ実装されていません。`raise NotImplementedError()` の行を消して、コードを書いてください。",
        "ko": "{name}은(는) 아직 구현되지 않았습니다. `raise NotImplementedError()` 줄을 지우고 코드를 작성하세요.",
    },
    "returned_not_tensor": {
        "ja": "{name} の戻り値は torch.Tensor のはずですが、{kind} が返ってきました。",
        "ko": "{name}의 반환값은 torch.Tensor여야 하는데 {kind}이(가) 반환되었습니다.",
    },
    "returned_not_pair": {
        "ja": "{name} は (出力, 重み) の2つを返してください。返ってきたのは {kind} でした。",
        "ko": "{name}은(는) (출력, 가중치) 두 개를 반환해야 합니다. 반환된 것은 {kind}입니다.",
    },
    "wrong_ndim": {
        "ja": "{what}の次元数が合いません。{want} 次元 {layout} のはずが、{got} 次元（形状 {shape}）になっています。",
        "ko": "{what}의 차원 수가 맞지 않습니다. 기대: {want}차원 {layout} / 실제: {got}차원(모양 {shape})",
    },
    "wrong_axis": {
        "ja": "{what}の形状が違います。{want} {layout} のはずが {got} になっています。軸 {axis}（{axis_name}）の大きさが {want_n} ではなく {got_n} です。",
        "ko": "{what}의 모양이 다릅니다. 기대: {want} {layout} / 실제: {got}. 축 {axis}({axis_name})의 크기가 기대와 다릅니다(기대 {want_n}, 실제 {got_n}).",
    },
    "swapped_axes": {
        "ja": "軸 {a}（{name_a}）と軸 {b}（{name_b}）が入れ替わっているようです。",
        "ko": "축 {a}({name_a})와 축 {b}({name_b})가 서로 바뀐 것 같습니다.",
    },
    "values_differ": {
        "ja": "{what}の値が正しくありません（最大誤差 {err:.3g}）。",
        "ko": "{what}의 값이 올바르지 않습니다(최대 오차 {err:.3g}).",
    },
    "what_scores": {"ja": "スコア", "ko": "점수"},
    "what_weights": {"ja": "重み", "ko": "가중치"},
    "what_output": {"ja": "出力", "ko": "출력"},
    "has_nan": {
        "ja": "{what}に NaN または inf が含まれています。",
        "ko": "{what}에 NaN 또는 inf가 들어 있습니다.",
    },
    # hints for the classic bugs ------------------------------------------------
    "hint_transpose_k": {
        "ja": "Q は (…, T_q, d_k)、K は (…, T_k, d_k) です。行列積 Q @ Kᵀ のためには K の最後の2軸を入れ替えて (…, d_k, T_k) にします: K.transpose(-2, -1)。",
        "ko": "Q는 (…, T_q, d_k), K는 (…, T_k, d_k)입니다. 행렬 곱 Q @ Kᵀ를 하려면 K의 마지막 두 축을 바꿔 (…, d_k, T_k)로 만들어야 합니다: K.transpose(-2, -1).",
    },
    "hint_dot_T": {
        "ja": "3次元以上のテンソルに .T を使うと、すべての軸が逆順になります（(B, T, d) → (d, T, B)）。バッチはそのままにして最後の2軸だけを入れ替える K.transpose(-2, -1)（または K.mT）を使いましょう。",
        "ko": "3차원 이상 텐서에 .T를 쓰면 모든 축의 순서가 뒤집힙니다((B, T, d) → (d, T, B)). 배치 축은 그대로 두고 마지막 두 축만 바꾸는 K.transpose(-2, -1)(또는 K.mT)을 쓰세요.",
    },
    "hint_kq_order": {
        "ja": "K @ Qᵀ を計算していませんか。行がクエリ、列がキーになるように Q @ Kᵀ の順にします。",
        "ko": "혹시 K @ Qᵀ를 계산하지 않았나요? 행이 쿼리, 열이 키가 되도록 Q @ Kᵀ 순서로 곱해야 합니다.",
    },
    "hint_no_scale": {
        "ja": "スケーリングを忘れているようです。QKᵀ を √d_k で割ってください。割らないと d_k が大きいときに分散が d_k 倍になり、ソフトマックスが飽和します。",
        "ko": "스케일링을 빠뜨린 것 같습니다. QKᵀ를 √d_k로 나누세요. 나누지 않으면 d_k가 클 때 분산이 d_k배가 되어 소프트맥스가 포화합니다.",
    },
    "hint_scale_dk": {
        "ja": "d_k で割っていませんか。割るのは √d_k です（math.sqrt(d_k) または d_k ** 0.5）。d_k で割ると分散は 1 ではなく 1/d_k まで縮みます。",
        "ko": "d_k로 나누지 않았나요? 나눠야 하는 값은 √d_k입니다(math.sqrt(d_k) 또는 d_k ** 0.5). d_k로 나누면 분산이 1이 아니라 1/d_k로 줄어듭니다.",
    },
    "hint_scale_mul": {
        "ja": "√d_k を掛けていませんか。掛けるのではなく割ります。",
        "ko": "√d_k를 곱하지 않았나요? 곱하는 것이 아니라 나눠야 합니다.",
    },
    "hint_scale_wrong_dim": {
        "ja": "割る数に別の軸の大きさを使っていませんか。d_k は Q の最後の軸の大きさ Q.size(-1) です（系列長ではありません）。",
        "ko": "나누는 값에 다른 축의 크기를 쓰지 않았나요? d_k는 Q의 마지막 축 크기 Q.size(-1)입니다(시퀀스 길이가 아닙니다).",
    },
    "hint_softmax_axis": {
        "ja": "ソフトマックスをかける軸が違います。各クエリ（行）について、キー方向（最後の軸, dim=-1）の和が 1 になるはずです。いまは軸 {axis} の方向に和が 1 になっています。",
        "ko": "소프트맥스를 적용하는 축이 틀렸습니다. 각 쿼리(행)마다 키 방향(마지막 축, dim=-1)의 합이 1이 되어야 합니다. 지금은 축 {axis} 방향의 합이 1입니다.",
    },
    "hint_rows_not_normalised": {
        "ja": "各行の和が 1 になっていません（最後の軸で和をとると {lo:.3g}〜{hi:.3g}）。exp の和で割り忘れていないか確認してください。",
        "ko": "각 행의 합이 1이 아닙니다(마지막 축으로 더하면 {lo:.3g}~{hi:.3g}). exp의 합으로 나누는 것을 잊지 않았는지 확인하세요.",
    },
    "hint_softmax_overflow": {
        "ja": "大きなスコア（例: 1000）を入れると NaN や inf になりました。exp をとる前に各行の最大値を引くと、結果を変えずにオーバーフローを防げます。",
        "ko": "큰 점수(예: 1000)를 넣었더니 NaN이나 inf가 나왔습니다. exp를 취하기 전에 각 행의 최댓값을 빼면 결과는 그대로이면서 오버플로를 막을 수 있습니다.",
    },
    "hint_weights_v_order": {
        "ja": "出力は 重み @ V です（(…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)）。",
        "ko": "출력은 가중치 @ V입니다((…, T_q, T_k) @ (…, T_k, d_v) → (…, T_q, d_v)).",
    },
    "hint_returns_scores": {
        "ja": "2つ目の戻り値はソフトマックス後の重みにしてください（ソフトマックス前のスコアになっているようです）。",
        "ko": "두 번째 반환값은 소프트맥스를 거친 가중치여야 합니다(소프트맥스 전의 점수를 반환한 것 같습니다).",
    },
    "hint_w_o_missing": {
        "ja": "出力射影 W_o を忘れていませんか。重み @ V の結果は (B, T, D) なので、W_o で埋め込み次元 E に戻して (B, T, E) にします。",
        "ko": "출력 투영 W_o를 빠뜨리지 않았나요? 가중치 @ V의 결과는 (B, T, D)이므로 W_o로 임베딩 차원 E로 되돌려 (B, T, E)로 만들어야 합니다.",
    },
    "hint_missing_layer": {
        "ja": "self.{name} が見つかりません。__init__ で self.{name} = nn.Linear(...) を作ってください。",
        "ko": "self.{name}이(가) 없습니다. __init__에서 self.{name} = nn.Linear(...)를 만드세요.",
    },
    "hint_not_linear": {
        "ja": "self.{name} は nn.Linear にしてください（いまは {kind}）。",
        "ko": "self.{name}은(는) nn.Linear여야 합니다(지금은 {kind}).",
    },
    "hint_layer_shape": {
        "ja": "self.{name} の形状が違います: nn.Linear({want_in}, {want_out}) のはずが nn.Linear({got_in}, {got_out}) です。{why}",
        "ko": "self.{name}의 모양이 다릅니다: nn.Linear({want_in}, {want_out})여야 하는데 nn.Linear({got_in}, {got_out})입니다. {why}",
    },
    "why_proj_in": {
        "ja": "W_q, W_k, W_v は埋め込み次元 E をキー次元 D に写します。",
        "ko": "W_q, W_k, W_v는 임베딩 차원 E를 키 차원 D로 사상합니다.",
    },
    "why_proj_out": {
        "ja": "W_o はバリューの次元 D（ここではキー次元と同じ）を埋め込み次元 E に戻します。",
        "ko": "W_o는 키 차원 D를 임베딩 차원 E로 되돌립니다.",
    },
    "hint_has_bias": {
        "ja": "self.{name} にバイアスがあります。この講座の Attention では bias=False にします。",
        "ko": "self.{name}에 편향이 있습니다. 이 강좌의 Attention에서는 bias=False로 둡니다.",
    },
    "hint_param_count": {
        "ja": "パラメータ数が {got} ですが、4·E·D = {want} のはずです。余分な層やバイアスがないか確認してください。",
        "ko": "파라미터 수가 {got}인데, 4·E·D = {want}이어야 합니다. 불필요한 층이나 편향이 없는지 확인하세요.",
    },
    "hint_no_input_check": {
        "ja": "誤った入力 {shape} でもエラーになりませんでした。forward の最初の行 course.expect_tokens(x, self.embed_dim) を消していませんか。",
        "ko": "잘못된 입력 {shape}에도 오류가 나지 않았습니다. forward 첫 줄의 course.expect_tokens(x, self.embed_dim)을 지우지 않았나요?",
    },
    "hint_uses_layers": {
        "ja": "出力が self.W_q / W_k / W_v / W_o の重みから計算した値と一致しません。forward で自分の層を使っているか確認してください。",
        "ko": "출력이 self.W_q / W_k / W_v / W_o의 가중치로 계산한 값과 일치하지 않습니다. forward에서 자신의 층을 쓰고 있는지 확인하세요.",
    },
    "hint_wrong_projection": {
        "ja": "Q, K, V を作る層が入れ替わっていませんか（Q は W_q、K は W_k、V は W_v から）。",
        "ko": "Q, K, V를 만드는 층이 뒤바뀌지 않았나요? (Q는 W_q, K는 W_k, V는 W_v로 만듭니다.)",
    },
    # lesson 2: splitting and merging heads ----------------------------------------
    "hint_view_without_transpose": {
        "ja": "view だけで (B, H, T, D) にしていませんか。メモリ上では各トークンのベクトルが [ヘッド0 | ヘッド1 | …] の順に並んでいます。まず view(B, T, H, D) で最後の軸をヘッドごとに切り分け、それから transpose(1, 2) で H を T の前に出します。",
        "ko": "view만으로 (B, H, T, D)를 만들지 않았나요? 메모리에는 각 토큰의 벡터가 [헤드0 | 헤드1 | …] 순서로 놓여 있습니다. 먼저 view(B, T, H, D)로 마지막 축을 헤드별로 자르고, 그다음 transpose(1, 2)로 H를 T 앞으로 옮겨야 합니다.",
    },
    "hint_missing_transpose": {
        "ja": "view(B, T, H, D) のあとの転置が抜けています。transpose(1, 2) で T と H の軸を入れ替えて、(B, H, T, D) にしてください。",
        "ko": "view(B, T, H, D) 다음의 전치가 빠졌습니다. transpose(1, 2)로 T축과 H축을 바꿔 (B, H, T, D)로 만드세요.",
    },
    "hint_interleaved": {
        "ja": "各ヘッドが H 成分おきの飛び飛びの成分を拾っています。view(B, T, D, H) のように D と H の順を逆にすると、ヘッド h が成分 h, h+H, h+2H, … を受け持つことになります。view(B, T, H, D) なら、ヘッド h は成分 h·D 〜 (h+1)·D − 1 のひと続きを受け持ちます。",
        "ko": "각 헤드가 H칸씩 건너뛴 성분을 가져가고 있습니다. view(B, T, D, H)처럼 D와 H의 순서를 바꾸면 헤드 h가 h, h+H, h+2H, … 번째 성분을 맡게 됩니다. view(B, T, H, D)로 나누면 헤드 h는 h·D번째부터 (h+1)·D − 1번째까지 이어진 성분을 맡습니다.",
    },
    "hint_heads_order": {
        "ja": "ヘッドの並び順が逆です（flip を使っていませんか）。結合したあとの成分 h·D 〜 (h+1)·D − 1 には、ヘッド h の出力が入ります。",
        "ko": "헤드 순서가 거꾸로입니다(flip을 쓰지 않았나요?). 합친 뒤의 h·D번째부터 (h+1)·D − 1번째 성분에는 헤드 h의 출력이 들어가야 합니다.",
    },
    "hint_contiguous": {
        "ja": "transpose したテンソルはメモリ上で連続していないので、そのままでは view できません。transpose(1, 2).contiguous().view(B, T, H * D) とするか、reshape を使ってください。",
        "ko": "transpose한 텐서는 메모리에서 연속적이지 않아서 그대로는 view할 수 없습니다. transpose(1, 2).contiguous().view(B, T, H * D)로 쓰거나 reshape를 쓰세요.",
    },
    "hint_merge_without_transpose": {
        "ja": "(B, H, T, D) をそのまま view(B, T, H * D) にしていませんか。先に transpose(1, 2) で (B, T, H, D) に戻してから、最後の2軸をつなげます。",
        "ko": "(B, H, T, D)를 그대로 view(B, T, H * D)로 바꾸지 않았나요? 먼저 transpose(1, 2)로 (B, T, H, D)로 되돌린 다음 마지막 두 축을 이어 붙여야 합니다.",
    },
    "hint_not_split": {
        "ja": "重みが (B, T, T) になっています。ヘッドごとに別々のソフトマックスをとるので、重みは (B, H, T, T) のはずです。Q, K, V を split_heads で分けてからスコアを計算してください。",
        "ko": "가중치가 (B, T, T)입니다. 헤드마다 따로 소프트맥스를 하므로 가중치는 (B, H, T, T)여야 합니다. Q, K, V를 split_heads로 나눈 다음 점수를 계산하세요.",
    },
    "hint_scale_head_dim": {
        "ja": "割る数が違います。スケーリングに使うのは1つのヘッドの次元 D（head_dim）の平方根 √D です。√(H·D) や √E ではありません。",
        "ko": "나누는 값이 틀렸습니다. 스케일링에는 헤드 하나의 차원 D(head_dim)의 제곱근 √D를 씁니다. √(H·D)나 √E가 아닙니다.",
    },
    "hint_head_dim_divides": {
        "ja": "embed_dim = {e} は n_head = {h} で割り切れないので、head_dim を決められません。head_dim を指定するか、割り切れる組み合わせにしてください。",
        "ko": "embed_dim = {e}, n_head = {h}: 나누어떨어지지 않아서 head_dim을 정할 수 없습니다. head_dim을 직접 지정하거나 나누어떨어지는 조합을 쓰세요.",
    },
    "hint_head_dim_default": {
        "ja": "head_dim を省略したときは embed_dim // n_head を使ってください（MultiHeadAttention({e}, {h}) なら {want}、いまは {got}）。",
        "ko": "head_dim을 생략하면 embed_dim // n_head를 써야 합니다(MultiHeadAttention({e}, {h})라면 {want}, 지금은 {got}).",
    },
    "hint_no_divisibility_error": {
        "ja": "MultiHeadAttention({e}, {h}) がエラーになりませんでした。割り切れないときは course.checks.resolve_head_dim が ValueError を出すので、__init__ で使ってください。",
        "ko": "MultiHeadAttention({e}, {h})에서 오류가 나지 않았습니다. 나누어떨어지지 않으면 course.checks.resolve_head_dim이 ValueError를 내므로 __init__에서 이 함수를 쓰세요.",
    },
    "torch_mha_incompatible": {
        "ja": "nn.MultiheadAttention はヘッドの次元を embed_dim // num_heads に固定しているので、n_head × head_dim = embed_dim のときしか重みを移せません（いまは {h} × {d} ≠ {e}）。",
        "ko": "nn.MultiheadAttention은 헤드 차원을 embed_dim // num_heads로 고정하므로 n_head × head_dim = embed_dim일 때만 가중치를 옮길 수 있습니다(지금은 {h} × {d} ≠ {e}).",
    },
    "hint_returns_torch_mha": {
        "ja": "nn.MultiheadAttention を返してください（いまは {kind}）。",
        "ko": "nn.MultiheadAttention을 반환하세요(지금은 {kind}).",
    },
    "hint_torch_mha_setup": {
        "ja": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True) として作ってください（{what} が違います）。",
        "ko": "nn.MultiheadAttention(embed_dim, n_head, bias=False, batch_first=True)로 만드세요({what}이(가) 다릅니다).",
    },
    "hint_in_proj_order": {
        "ja": "in_proj_weight には W_q, W_k, W_v の weight をこの順に縦に連結（torch.cat(..., dim=0)）して入れます。順番が入れ替わっているようです。",
        "ko": "in_proj_weight에는 W_q, W_k, W_v의 weight를 이 순서대로 세로로 이어 붙여(torch.cat(..., dim=0)) 넣습니다. 순서가 바뀐 것 같습니다.",
    },
    "hint_in_proj_transposed": {
        "ja": "weight は転置せずにそのままコピーします。nn.Linear の weight も in_proj_weight も (出力, 入力) の形状です。",
        "ko": "weight는 전치하지 말고 그대로 복사합니다. nn.Linear의 weight도 in_proj_weight도 (출력, 입력) 모양입니다.",
    },
    "hint_out_proj": {
        "ja": "out_proj.weight に W_o.weight をコピーしたか確認してください。",
        "ko": "out_proj.weight에 W_o.weight를 복사했는지 확인하세요.",
    },
    "hint_head_slice": {
        "ja": "ヘッド i の W_q, W_k, W_v は weight の行 i·D 〜 (i+1)·D − 1（weight[i*D:(i+1)*D]）、W_o は列のほう（W_o.weight[:, i*D:(i+1)*D]）です。",
        "ko": "헤드 i의 W_q, W_k, W_v는 weight의 행 i·D ~ (i+1)·D − 1(weight[i*D:(i+1)*D])이고, W_o는 열 쪽(W_o.weight[:, i*D:(i+1)*D])입니다.",
    },
    "hint_head_returns_attention": {
        "ja": "head_as_single は第1回の Attention モジュール（Attention(embed_dim, head_dim)）を返してください。",
        "ko": "head_as_single은 1강의 Attention 모듈(Attention(embed_dim, head_dim))을 반환해야 합니다.",
    },
    "hint_sum_of_heads": {
        "ja": "1つずつ取り出したヘッドの出力の和が、MultiHeadAttention の出力と一致しません（最大誤差 {err:.3g}）。",
        "ko": "하나씩 꺼낸 헤드 출력의 합이 MultiHeadAttention의 출력과 일치하지 않습니다(최대 오차 {err:.3g}).",
    },
    "fig_wide_vs_heads": {
        "ja": "1つの幅広ヘッド（左）と {h} 個のヘッド（右）の重み",
        "ko": "넓은 헤드 하나(왼쪽)와 헤드 {h}개(오른쪽)의 가중치",
    },
    "demo_wide_vs_heads": {
        "ja": "パラメータ数: ヘッド {h} 個 = {a}、幅広のヘッド1つ = {b}。出力の相対差 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
        "ko": "파라미터 수: 헤드 {h}개 = {a}, 넓은 헤드 하나 = {b}. 출력의 상대 차이 |y_heads − y_wide| / |y_heads| = {rel:.3f}",
    },
    "demo_seeds": {
        "ja": "シードを {n} 通り変えたとき（パラメータも入力も毎回作り直します）の相対差：最小 {lo:.3f}、平均 {mean:.3f}、最大 {hi:.3f}",
        "ko": "시드를 {n}가지로 바꿔 가며(파라미터와 입력을 매번 새로 만듭니다) 잰 상대 차이: 최소 {lo:.3f}, 평균 {mean:.3f}, 최대 {hi:.3f}",
    },
    "fig_wide_head": {"ja": "幅 H·D = {w} のヘッド1つ", "ko": "폭 H·D = {w}인 헤드 하나"},
    # lesson 3: masks and dropout ------------------------------------------------------
    "hint_upper_triangle": {
        "ja": "上三角が残っています。因果マスクでは、クエリ i が見てよいのはキー j ≤ i（対角線とその左下）です。torch.tril を使います（triu ではありません）。",
        "ko": "위 삼각형이 남아 있습니다. 인과 마스크에서 쿼리 i가 볼 수 있는 것은 키 j ≤ i(대각선과 그 왼쪽 아래)입니다. torch.triu가 아니라 torch.tril을 쓰세요.",
    },
    "hint_inverted_mask": {
        "ja": "マスクが反転しています。この講座の keep マスクは「見てよいところが True」です。masked_fill は True の場所を埋めるので、埋めるのは ~keep（見てはいけないところ）です。",
        "ko": "마스크가 뒤집혔습니다. 이 강좌의 keep 마스크는 '봐도 되는 곳이 True'입니다. masked_fill은 True인 곳을 채우므로, 채울 곳은 ~keep(보면 안 되는 곳)입니다.",
    },
    "hint_mask_not_bool": {
        "ja": "マスクは dtype=torch.bool にしてください（いまは {dtype}）。",
        "ko": "마스크는 dtype=torch.bool이어야 합니다(지금은 {dtype}).",
    },
    "hint_mask_device": {
        "ja": "マスクがスコアと別のデバイスに作られています。torch.ones(T, T) のように device を指定せずに作ると CPU に置かれ、GPU 上のスコアと組み合わせたときにエラーになります。device= を渡すか、register_buffer で登録してモジュールと一緒に移動させてください。",
        "ko": "마스크가 점수와 다른 장치에 만들어졌습니다. torch.ones(T, T)처럼 device를 지정하지 않으면 CPU에 놓이고, GPU에 있는 점수와 함께 쓰면 오류가 납니다. device=를 넘기거나 register_buffer로 등록해 모듈과 함께 옮겨지게 하세요.",
    },
    "hint_mask_multiplied": {
        "ja": "スコアにマスクを掛けて 0 にしていませんか。exp(0) = 1 なので、0 にしても見てはいけない位置に重みが残ります。見てはいけない位置のスコアは -inf で埋めます。",
        "ko": "점수에 마스크를 곱해 0으로 만들지 않았나요? exp(0) = 1이라서 0으로 바꿔도 보면 안 되는 위치에 가중치가 남습니다. 보면 안 되는 위치의 점수는 -inf로 채웁니다.",
    },
    "hint_mask_after_softmax": {
        "ja": "ソフトマックスのあとでマスクをかけていませんか。その場合、マスクした重みは 0 になりますが、各行の和が 1 になりません。マスクはソフトマックスの前に、スコアを -inf で埋める形でかけます。",
        "ko": "소프트맥스 다음에 마스크를 씌우지 않았나요? 그러면 가린 가중치는 0이 되지만 각 행의 합이 1이 되지 않습니다. 마스크는 소프트맥스 전에, 점수를 -inf로 채우는 방식으로 씌워야 합니다.",
    },
    "hint_no_mask": {
        "ja": "重みの上三角が 0 になっていません。因果マスクがかかっていないようです。",
        "ko": "가중치의 위 삼각형이 0이 아닙니다. 인과 마스크가 적용되지 않은 것 같습니다.",
    },
    "hint_padding_off_by_one": {
        "ja": "1つずれています。長さ L の系列では位置 0 〜 L−1 が本物のトークンで、位置 L からがパディングです（arange(T) < L。≤ ではありません）。",
        "ko": "한 칸 어긋났습니다. 길이가 L인 시퀀스에서는 위치 0 ~ L−1이 실제 토큰이고 위치 L부터가 패딩입니다(arange(T) < L이며, ≤가 아닙니다).",
    },
    "hint_padding_inverted": {
        "ja": "True と False が逆です。padding_keep では本物のトークン（位置 < 長さ）を True、パディングを False にします。",
        "ko": "True와 False가 반대입니다. padding_keep에서는 실제 토큰(위치 < 길이)이 True, 패딩이 False입니다.",
    },
    "hint_padding_ignored": {
        "ja": "lengths が無視されているようです。パディングの位置（長さ以降のキー）にも重みが付いています。",
        "ko": "lengths가 무시된 것 같습니다. 패딩 위치(길이 이후의 키)에도 가중치가 붙어 있습니다.",
    },
    "hint_nan_fully_masked": {
        "ja": "すべてのキーがマスクされた行（長さ 0 の系列など）で NaN が出ています。softmax(-inf, …, -inf) は 0/0 = NaN です。そうした行では、ソフトマックスのあとで重みを 0 に置き換えてください（たとえば nan_to_num(0.0)）。",
        "ko": "모든 키가 가려진 행(길이 0인 시퀀스 등)에서 NaN이 나옵니다. softmax(-inf, …, -inf)는 0/0 = NaN입니다. 그런 행은 소프트맥스 다음에 가중치를 0으로 바꾸세요(예: nan_to_num(0.0)).",
    },
    "hint_dropout_eval": {
        "ja": "eval モードなのに、出力が呼ぶたびに変わるか、ドロップアウトなしの結果と一致しません。nn.Dropout を使えば eval() で自動的に止まります（F.dropout を使うなら training=self.training を渡してください）。",
        "ko": "eval 모드인데도 출력이 호출할 때마다 바뀌거나, 드롭아웃을 뺀 결과와 다릅니다. nn.Dropout은 eval()에서 자동으로 꺼집니다(F.dropout을 쓴다면 training=self.training을 넘기세요).",
    },
    "hint_dropout_train": {
        "ja": "train モードでドロップアウトがかかっていません。self.dropout を重みに適用してください。",
        "ko": "train 모드에서 드롭아웃이 적용되지 않았습니다. self.dropout을 가중치에 적용하세요.",
    },
    "hint_weights_after_dropout": {
        "ja": "返している重みがドロップアウト後のものです（各行の和が 1 になりません）。図や確認のために、ドロップアウト前の重みを返してください。",
        "ko": "반환한 가중치가 드롭아웃을 거친 것입니다(각 행의 합이 1이 아닙니다). 그림과 확인을 위해 드롭아웃 전의 가중치를 반환하세요.",
    },
    "hint_buffer_missing": {
        "ja": "self.causal がバッファとして登録されていません。__init__ で self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False) のように登録してください（第3回では causal_mask(max_len) でも作れます）。",
        "ko": "self.causal이 버퍼로 등록되어 있지 않습니다. __init__에서 self.register_buffer(\"causal\", torch.ones(max_len, max_len, dtype=torch.bool).tril(), persistent=False)처럼 등록하세요(3강에서는 causal_mask(max_len)로 만들어도 됩니다).",
    },
    "hint_sdpa_mismatch": {
        "ja": "use_sdpa=True の出力が、マスクを使った計算と一致しません。scaled_dot_product_attention の bool マスクは「True の場所を見る」です（nn.MultiheadAttention とは逆）。keep マスクをそのまま attn_mask に渡してください。",
        "ko": "use_sdpa=True의 출력이 마스크를 쓴 계산과 일치하지 않습니다. scaled_dot_product_attention의 bool 마스크는 'True인 곳을 본다'입니다(nn.MultiheadAttention과 반대). keep 마스크를 그대로 attn_mask에 넘기세요.",
    },
    "hint_same_convention": {
        "ja": "マスクがそのまま返ってきました。nn.MultiheadAttention の bool マスクは「True = 隠す」、scaled_dot_product_attention は「True = 見る」で、意味が逆です。",
        "ko": "마스크가 그대로 반환되었습니다. nn.MultiheadAttention의 bool 마스크는 'True = 가림', scaled_dot_product_attention은 'True = 봄'으로 뜻이 반대입니다.",
    },
    "hint_additive_changed": {
        "ja": "加算マスク（float）は、どちらの関数でも「スコアに足す値」なので、変換せずにそのまま返します。",
        "ko": "덧셈 마스크(float)는 두 함수 모두에서 '점수에 더하는 값'이므로 변환하지 않고 그대로 반환합니다.",
    },
    "hint_not_causal": {
        "ja": "因果性が崩れています：位置 {t} より後のトークンを変えたら、位置 {t} までの出力が変わりました。",
        "ko": "인과성이 깨졌습니다: 위치 {t} 뒤의 토큰을 바꾸자 위치 {t}까지의 출력이 바뀌었습니다.",
    },
    "case_masked_path": {
        "ja": "自分で書いた計算（use_sdpa=False）",
        "ko": "직접 구현한 계산(use_sdpa=False)",
    },
    "case_sdpa_path": {
        "ja": "scaled_dot_product_attention を使った計算（use_sdpa=True）",
        "ko": "scaled_dot_product_attention을 쓴 계산(use_sdpa=True)",
    },
    "case_eval_determinism": {"ja": "eval モードでの再現性", "ko": "eval 모드에서의 재현성"},
    "stage_scores": {"ja": "QKᵀ", "ko": "QKᵀ"},
    "stage_scaled": {"ja": "÷√D", "ko": "÷√D"},
    "stage_masked": {"ja": "＋マスク", "ko": "+마스크"},
    "stage_softmax": {"ja": "ソフトマックス", "ko": "소프트맥스"},
    "widget_stage": {"ja": "段階", "ko": "단계"},
    "widget_causal": {"ja": "因果マスク", "ko": "인과 마스크"},
    "widget_padding": {"ja": "パディングマスク", "ko": "패딩 마스크"},
    "fig_stage_title": {"ja": "{stage}（× はマスクされた位置）", "ko": "{stage}(×는 가려진 위치)"},
    "fig_pad_token": {"ja": "〈パッド〉", "ko": "〈패드〉"},
    # lesson 4: GPT-2's fused QKV ---------------------------------------------------------
    "hint_returns_triple": {
        "ja": "{name} は (q, k, v) の3つを返してください（いまは {kind}）。",
        "ko": "{name}은(는) (q, k, v) 세 개를 반환해야 합니다(지금은 {kind}).",
    },
    "hint_interleaved_qkv": {
        "ja": "ヘッドが混ざっています。(B, T, H, 3·D) に reshape してから chunk すると、ヘッドごとに [q | k | v] が並んでいる前提になりますが、GPT-2 の c_attn の出力は [Q 全体 | K 全体 | V 全体] の順です。先に split(E, dim=2) で Q, K, V に分け、それぞれをヘッドに分けてください。",
        "ko": "헤드가 섞였습니다. (B, T, H, 3·D)로 reshape한 다음 chunk하면 헤드마다 [q | k | v]가 놓여 있다고 가정하게 되지만, GPT-2의 c_attn 출력은 [Q 전체 | K 전체 | V 전체] 순서입니다. 먼저 split(E, dim=2)로 Q, K, V를 나눈 다음 각각을 헤드로 나누세요.",
    },
    "hint_qkv_order": {
        "ja": "Q, K, V の順番が入れ替わっています。c_attn の出力は最初の E 個が Q、次の E 個が K、最後の E 個が V です。",
        "ko": "Q, K, V의 순서가 바뀌었습니다. c_attn 출력의 처음 E개가 Q, 다음 E개가 K, 마지막 E개가 V입니다.",
    },
    "hint_missing_bias": {
        "ja": "バイアスが足りません。GPT-2 の c_attn と c_proj にはバイアスがあります（nn.Linear の既定 bias=True のままにし、重みを移すときはバイアスもコピーします）。",
        "ko": "편향이 빠졌습니다. GPT-2의 c_attn과 c_proj에는 편향이 있습니다(nn.Linear의 기본값 bias=True를 그대로 두고, 가중치를 옮길 때 편향도 복사하세요).",
    },
    "hint_missing_mask": {
        "ja": "因果マスクがかかっていません。GPT-2 はデコーダなので、各トークンが自分より後ろのトークンを見ないよう、スコアにマスクをかけます（SDPA なら is_causal=True）。",
        "ko": "인과 마스크가 적용되지 않았습니다. GPT-2는 디코더이므로 각 토큰이 자기보다 뒤의 토큰을 보지 않도록 점수에 마스크를 씌워야 합니다(SDPA라면 is_causal=True).",
    },
    "hint_conv1d_transpose": {
        "ja": "Hugging Face の GPT-2 は Conv1D という層を使い、weight を (入力, 出力) の形で持っています。nn.Linear の weight は (出力, 入力) なので、コピーするときに .T で転置してください。c_proj は正方行列なので、転置を忘れてもエラーにならず、値だけが違ってしまいます。",
        "ko": "Hugging Face의 GPT-2는 Conv1D라는 층을 쓰고 weight를 (입력, 출력) 모양으로 가집니다. nn.Linear의 weight는 (출력, 입력)이므로 복사할 때 .T로 전치하세요. c_proj는 정사각 행렬이라서 전치를 잊어도 오류 없이 값만 달라집니다.",
    },
    "hint_init_std": {
        "ja": "{name} の標準偏差が {got:.4f} になっています。GPT-2 の初期化では、平均 0・標準偏差 {want:.4f} の正規分布を使います（c_proj だけは 0.02/√(2L)）。",
        "ko": "{name}의 표준편차가 {got:.4f}입니다. GPT-2는 평균 0, 표준편차 {want:.4f}인 정규분포로 초기화합니다(c_proj만 0.02/√(2L)).",
    },
    "hint_init_bias": {
        "ja": "{name} が 0 になっていません。GPT-2 の初期化ではバイアスを 0 にします。",
        "ko": "{name}이(가) 0이 아닙니다. GPT-2 초기화에서는 편향을 0으로 둡니다.",
    },
    "demo_hf_error": {
        "ja": "E = {e}, H = {h}: GPT2Attention との最大誤差は、マスクを使う計算で {a:.1e}、SDPA で {b:.1e}",
        "ko": "E = {e}, H = {h}: GPT2Attention과의 최대 오차는 마스크를 쓴 계산에서 {a:.1e}, SDPA에서 {b:.1e}",
    },
    "fig_fused_title": {
        "ja": "c_attn.weight（{rows} × {cols}）：Q | K | V のブロックとヘッドの境界",
        "ko": "c_attn.weight({rows} × {cols}): Q | K | V 블록과 헤드 경계",
    },
    "fig_in_features": {"ja": "入力の次元（E）", "ko": "입력 차원(E)"},
    "fig_out_features": {"ja": "出力の次元（3E = Q | K | V）", "ko": "출력 차원(3E = Q | K | V)"},
    # numeric answers ------------------------------------------------------------
    "answer_missing": {
        "ja": "{name} にまだ値が入っていません。数値を代入してください。",
        "ko": "{name}에 아직 값이 없습니다. 숫자를 대입하세요.",
    },
    "answer_not_number": {
        "ja": "{name} は数値にしてください（いまは {kind}）。",
        "ko": "{name}은(는) 숫자여야 합니다(지금은 {kind}).",
    },
    "answer_far_from_measured": {
        "ja": "{name} = {got} は、上の表で測った値 {measured:.3g} からかけ離れています。表を見直してみましょう。",
        "ko": "{name} = {got}은(는) 위 표에서 잰 값 {measured:.3g}과(와) 너무 다릅니다. 표를 다시 살펴보세요.",
    },
    "answer_std_not_var": {
        "ja": "{name} = {got} は標準偏差に見えます。聞いているのは分散（標準偏差の2乗）です。",
        "ko": "{name} = {got}은(는) 표준편차로 보입니다. 묻는 것은 분산(표준편차의 제곱)입니다.",
    },
    "answer_not_integer": {
        "ja": "{name} は整数になるはずです（いまは {got}）。",
        "ko": "{name}은(는) 정수여야 합니다(지금은 {got}).",
    },
    "answer_disagrees_with_module": {
        "ja": "{name} = {got} ですが、あなたの {module} のパラメータ数を数えると {counted} になります。どちらかを見直しましょう。",
        "ko": "{name} = {got}인데, 여러분의 {module}의 파라미터 수를 세면 {counted}입니다. 둘 중 하나를 다시 확인하세요.",
    },
    "answer_wrong": {
        "ja": "{name} の値が正しくありません。",
        "ko": "{name}의 값이 올바르지 않습니다.",
    },
    # hidden tests -----------------------------------------------------------------
    "tampered": {
        "ja": "採点に使う関数が書き換えられています（{names}）。torch や組み込み関数、講座のチェックを上書きしないでください。この答えは採点されません。",
        "ko": "채점에 쓰이는 함수가 바뀌었습니다({names}). torch나 내장 함수, 강좌의 검사 코드를 덮어쓰지 마세요. 이 답은 채점되지 않습니다.",
    },
    "tensor_subclass": {
        "ja": "{name} が torch.Tensor のサブクラスを返しました。ふつうの torch.Tensor を返してください。",
        "ko": "{name}이(가) torch.Tensor의 하위 클래스를 반환했습니다. 일반 torch.Tensor를 반환하세요.",
    },
    "hint_from_scratch": {
        "ja": "{name} は自分で組み立てる演習です。F.scaled_dot_product_attention や nn.MultiheadAttention を呼ばずに、行列積とソフトマックスで書いてください。",
        "ko": "{name}은(는) 직접 구현하는 연습 문제입니다. F.scaled_dot_product_attention이나 nn.MultiheadAttention을 부르지 말고 행렬 곱과 소프트맥스로 작성하세요.",
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
    "case_float64": {"ja": "float64 の入力", "ko": "float64 입력"},
    "case_float32": {"ja": "float32 の入力", "ko": "float32 입력"},
    "case_grad": {"ja": "勾配", "ko": "기울기"},
    "reference_missing": {
        "ja": "参照実装が見つかりません。隠しテストは採点環境（autograder/）でだけ動きます。",
        "ko": "참조 구현을 찾을 수 없습니다. 숨겨진 테스트는 채점 환경(autograder/)에서만 동작합니다.",
    },
    # --- lesson 5 ------------------------------------------------------------------
    "returned_not_number": {
        "ja": "{name} は損失を数値（float）で返してください。返ってきたのは {kind} です。",
        "ko": "{name}에서는 손실을 숫자(float)로 반환하세요. 반환된 값의 타입: {kind}",
    },
    "hint_loss_item": {
        "ja": "ヒント: `return loss.item()` と書くと、1要素のテンソルから float を取り出せます。",
        "ko": "힌트: `return loss.item()`이라고 쓰면 원소가 하나인 텐서에서 float를 꺼낼 수 있습니다.",
    },
    "train_loss_differs": {
        "ja": "{step} 回目の呼び出しで返した損失が、期待した値と違います（返した値: {got:.6f}、期待した値: {want:.6f}）。",
        "ko": "{step}번째 호출에서 반환한 손실이 기대한 값과 다릅니다(반환: {got:.6f}, 기대: {want:.6f}).",
    },
    "hint_loss_softmax_twice": {
        "ja": "ヒント: F.cross_entropy は内部でソフトマックスを計算します。ロジットをそのまま渡してください（先に softmax をかけると二重になります）。",
        "ko": "힌트: F.cross_entropy는 안에서 소프트맥스를 계산합니다. 로짓을 그대로 넘기세요(먼저 softmax를 적용하면 두 번 적용됩니다).",
    },
    "hint_loss_layout": {
        "ja": "ヒント: ロジット (B, T, 2, V) は `reshape(-1, V)` で (B·T·2, V) に、正解 (B, T, 2) は `reshape(-1)` で (B·T·2,) にしてから F.cross_entropy に渡します。正解が −100 の位置は ignore_index=-100 で損失から外します。",
        "ko": "힌트: 로짓 (B, T, 2, V)는 `reshape(-1, V)`로 (B·T·2, V)로, 정답 (B, T, 2)는 `reshape(-1)`로 (B·T·2,)로 바꾼 뒤 F.cross_entropy에 넘깁니다. 정답이 −100인 위치는 ignore_index=-100으로 손실에서 뺍니다.",
    },
    "hint_zero_grad": {
        "ja": "ヒント: 2回目以降だけ合わないなら、勾配が前のステップから足し込まれています。backward() の前に optimizer.zero_grad() を呼んでください。",
        "ko": "힌트: 두 번째 호출부터만 어긋난다면 기울기가 이전 단계에서 계속 더해지고 있습니다. backward() 전에 optimizer.zero_grad()를 호출하세요.",
    },
    "train_no_update": {
        "ja": "train_step を呼んでもパラメータが変わりません。",
        "ko": "train_step을 호출해도 파라미터가 바뀌지 않습니다.",
    },
    "hint_train_order": {
        "ja": "ヒント: 順番は zero_grad() → 損失の計算 → backward() → optimizer.step() です。backward() と step() の間に zero_grad() を呼ぶと、計算した勾配が消えてしまいます。",
        "ko": "힌트: 순서는 zero_grad() → 손실 계산 → backward() → optimizer.step()입니다. backward()와 step() 사이에 zero_grad()를 호출하면 계산한 기울기가 지워집니다.",
    },
    "train_params_differ": {
        "ja": "{step} 回目の呼び出しのあと、パラメータが期待した値と違います。",
        "ko": "{step}번째 호출 뒤의 파라미터가 기대한 값과 다릅니다.",
    },
    "what_entropy": {"ja": "エントロピー", "ko": "엔트로피"},
    "hint_entropy_nan": {
        "ja": "ヒント: 因果マスクで重みがちょうど 0 の位置では 0·log 0 が NaN になります。定義では 0·log 0 = 0 です。torch.special.xlogy(w, w) を使うか、w.clamp_min(1e-12).log() のように 0 を避けてください。",
        "ko": "힌트: 인과 마스크 때문에 가중치가 정확히 0인 위치에서는 0·log 0이 NaN이 됩니다. 정의상 0·log 0 = 0입니다. torch.special.xlogy(w, w)를 쓰거나 w.clamp_min(1e-12).log()처럼 0을 피하세요.",
    },
    "hint_entropy_log2": {
        "ja": "ヒント: 値が ln 2 倍ずれています。底が 2 の log（ビット）ではなく、自然対数 torch.log（nat）を使ってください。",
        "ko": "힌트: 값이 ln 2배만큼 어긋납니다. 밑이 2인 log(비트)가 아니라 자연로그 torch.log(nat)를 쓰세요.",
    },
    "hint_entropy_sign": {
        "ja": "ヒント: 符号が逆です。H = −Σ w log w で、値は 0 以上になります。",
        "ko": "힌트: 부호가 반대입니다. H = −Σ w log w이고, 값은 0 이상입니다.",
    },
    "hint_entropy_mean_axes": {
        "ja": "ヒント: 行ごとのエントロピー (B, H, T) を、バッチの軸とクエリの軸で平均して (H,) にします: mean(dim=(0, 2))。",
        "ko": "힌트: 행별 엔트로피 (B, H, T)를 배치 축과 쿼리 축으로 평균해서 (H,)로 만듭니다: mean(dim=(0, 2)).",
    },
    "ablation_differs": {
        "ja": "層 {layer}・ヘッド {head} を消したときの損失が、期待した値と違います（返した値: {got:.6f}、期待した値: {want:.6f}）。",
        "ko": "층 {layer}·헤드 {head}를 껐을 때의 손실이 기대한 값과 다릅니다(반환: {got:.6f}, 기대: {want:.6f}).",
    },
    "hint_ablation_output": {
        "ja": "ヒント: c_proj の出力ではなく入力を 0 にします。入力 (B, T, E) はヘッドの出力を横に並べたもので、ヘッド h は列 h·D から (h+1)·D の手前までです。出力の列はもうヘッドごとに分かれていません。",
        "ko": "힌트: c_proj의 출력이 아니라 입력을 0으로 만듭니다. 입력 (B, T, E)는 헤드의 출력을 옆으로 이어 붙인 것이고, 헤드 h는 열 h·D부터 (h+1)·D 직전까지입니다. 출력의 열은 더 이상 헤드별로 나뉘어 있지 않습니다.",
    },
    "hint_ablation_slice": {
        "ja": "ヒント: 0 にしたのは1列だけです。ヘッド h は D 列あります: [..., h * D:(h + 1) * D]。",
        "ko": "힌트: 0으로 만든 것이 열 하나뿐입니다. 헤드 h는 D개의 열을 차지합니다: [..., h * D:(h + 1) * D].",
    },
    "hint_ablation_nothing": {
        "ja": "ヒント: 損失が元のままです。フックを登録したのは model.blocks[layer].attn.c_proj ですか。フックが新しいテンソルを返さないと、入力は変わりません。",
        "ko": "힌트: 손실이 원래 그대로입니다. 훅을 model.blocks[layer].attn.c_proj에 등록했나요? 훅이 새 텐서를 반환하지 않으면 입력은 바뀌지 않습니다.",
    },
    "ablation_left_behind": {
        "ja": "loss_without_head を呼んだあと、モデルの出力が元に戻っていません。",
        "ko": "loss_without_head를 호출한 뒤 모델의 출력이 원래대로 돌아오지 않습니다.",
    },
    "hint_ablation_remove": {
        "ja": "ヒント: register_forward_pre_hook が返すハンドルの remove() を、try ... finally で必ず呼んでください。",
        "ko": "힌트: register_forward_pre_hook이 반환하는 핸들의 remove()를 try ... finally 안에서 꼭 호출하세요.",
    },
    "answer_head_range": {
        "ja": "{name} には 0 から {n} までの整数（ヘッドの番号）を入れてください。今の値: {got!r}",
        "ko": "{name}에는 0부터 {n}까지의 정수(헤드 번호)를 넣으세요. 지금 값: {got!r}",
    },
    "answer_weight_range": {
        "ja": "answer_prev_weight は重みの平均なので 0 以上 1 以下のはずです。今の値: {got:.4g}",
        "ko": "answer_prev_weight는 가중치의 평균이므로 0 이상 1 이하여야 합니다. 지금 값: {got:.4g}",
    },
    "answers_plausible": {
        "ja": "✔ 答えの形式は正しいです。正しいかどうかは隠しテストが、あなたの学習したモデルで確かめます。",
        "ko": "✔ 답의 형식은 올바릅니다. 맞는지는 숨겨진 테스트가 여러분이 학습시킨 모델로 확인합니다.",
    },
    "hidden_role_missing": {
        "ja": "隠しテスト: ヘッド {head} が直前のトークンに置く重みの平均は {w:.3f} です。ヘッドの番号か重みが、学習したモデルと合いません（最も直前を見るヘッドは {best}、その重みは {best_w:.3f}）。",
        "ko": "숨겨진 테스트: 헤드 {head}가 바로 앞 토큰에 두는 가중치의 평균은 {w:.3f}입니다. 헤드 번호나 가중치가 학습한 모델과 맞지 않습니다(바로 앞을 가장 많이 보는 헤드는 {best}, 그 가중치는 {best_w:.3f}).",
    },
    "hidden_role_untrained": {
        "ja": "隠しテスト: 直前のトークンを見るヘッドが育っていません（最大でも重み {w:.3f}）。学習（演習 1 と学習のセル）を見直してください。",
        "ko": "숨겨진 테스트: 바로 앞 토큰을 보는 헤드가 생기지 않았습니다(가중치 최대 {w:.3f}). 학습(연습 문제 1과 학습 셀)을 다시 확인하세요.",
    },
    "progress_training": {"ja": "学習", "ko": "학습"},
    "progress_compare": {"ja": "比較の学習", "ko": "비교 학습"},
    "fig_loss_title": {"ja": "学習中の損失", "ko": "학습 중 손실"},
    "fig_step_axis": {"ja": "ステップ", "ko": "스텝"},
    "fig_loss_axis": {"ja": "損失（交差エントロピー）", "ko": "손실(교차 엔트로피)"},
    "fig_compare_title": {
        "ja": "幅 {w} のヘッド 1 つ と 幅 {d} のヘッド {h} つ（シードごと）",
        "ko": "폭 {w}인 헤드 1개와 폭 {d}인 헤드 {h}개(시드별)",
    },
    "fig_compare_label": {"ja": "ヘッド {h} つ × 幅 {d}", "ko": "헤드 {h}개 × 폭 {d}"},
    "fig_final_loss_axis": {"ja": "学習後の損失（対数目盛）", "ko": "학습 후 손실(로그 눈금)"},
    "table_heads": {"ja": "ヘッド数 × 幅", "ko": "헤드 수 × 폭"},
    "table_params": {"ja": "パラメータ数", "ko": "파라미터 수"},
    "table_seed": {"ja": "シード", "ko": "시드"},
    "table_loss": {"ja": "損失", "ko": "손실"},
    "table_acc_first": {"ja": "正解率（先頭）", "ko": "정확도(첫 토큰)"},
    "table_acc_prev": {"ja": "正解率（直前）", "ko": "정확도(바로 앞 토큰)"},
    "table_prev_weight": {"ja": "直前への重み", "ko": "바로 앞 토큰 가중치"},
    "table_first_weight": {"ja": "先頭への重み", "ko": "첫 토큰 가중치"},
    "table_position": {"ja": "位置 t", "ko": "위치 t"},
    "table_token": {"ja": "トークン", "ko": "토큰"},
    "table_answer_first": {"ja": "答え 1（先頭）", "ko": "정답 1(첫 토큰)"},
    "table_answer_prev": {"ja": "答え 2（直前）", "ko": "정답 2(바로 앞 토큰)"},
    "row_before": {"ja": "学習前", "ko": "학습 전"},
    "row_after": {"ja": "学習後", "ko": "학습 후"},
    "row_none": {"ja": "消さない", "ko": "끄지 않음"},
    "table_uniform": {"ja": "一様なら", "ko": "균일할 때"},
    "table_loss_first": {"ja": "損失（問い 1 だけ）", "ko": "손실(질문 1만)"},
    "table_loss_prev": {"ja": "損失（問い 2 だけ）", "ko": "손실(질문 2만)"},
    "table_loss_without": {"ja": "損失（列のヘッドを消す）", "ko": "손실(열의 헤드를 끔)"},
    "toy_vocab": {"ja": "あいうえおかきくけこさしすせそた", "ko": "가나다라마바사아자차카타파하거너"},
    # pictures --------------------------------------------------------------------
    "fig_weights_title": {
        "ja": "アテンションの重み（温度 τ = {tau:.2f}{scaled}）",
        "ko": "어텐션 가중치(온도 τ = {tau:.2f}{scaled})",
    },
    "fig_scaled_suffix": {"ja": "、√d_k で割る", "ko": ", √d_k로 나눔"},
    "fig_unscaled_suffix": {"ja": "、割らない", "ko": ", 나누지 않음"},
    "fig_key_axis": {"ja": "キー（見られる側）", "ko": "키(보이는 쪽)"},
    "fig_query_axis": {"ja": "クエリ（見る側）", "ko": "쿼리(보는 쪽)"},
    "fig_entropy_title": {"ja": "各行のエントロピー", "ko": "행별 엔트로피"},
    "fig_entropy_axis": {"ja": "エントロピー [nat]", "ko": "엔트로피 [nat]"},
    "fig_entropy_max": {"ja": "最大 log T = {v:.2f}", "ko": "최대 log T = {v:.2f}"},
    "fig_head": {"ja": "ヘッド {h}", "ko": "헤드 {h}"},
    "fig_head_entropy_title": {"ja": "ヘッドごとの平均エントロピー", "ko": "헤드별 평균 엔트로피"},
    "widget_head": {"ja": "ヘッド", "ko": "헤드"},
    "widget_temperature": {"ja": "温度 τ", "ko": "온도 τ"},
    "widget_scaled": {"ja": "√d_k で割る", "ko": "√d_k로 나누기"},
    "widget_caption": {
        "ja": "τ を小さくすると重みが1か所に集まり（飽和）、大きくすると一様に近づきます。エントロピーは重みがどれだけ広がっているかの目安で、0 なら1か所だけ、log T なら全体に均等です。「クエリ」で1つの行を棒グラフに、「比べるヘッド」で2つのヘッドの差を表示します。",
        "ko": "τ를 작게 하면 가중치가 한 곳에 몰리고(포화), 크게 하면 고르게 퍼집니다. 엔트로피는 가중치가 얼마나 퍼져 있는지를 나타내며, 0이면 한 곳만, log T면 전체를 고르게 봅니다. '쿼리'를 고르면 그 행을 막대그래프로, '비교할 헤드'를 고르면 두 헤드의 차이를 보여 줍니다.",
    },
    "widget_layer": {"ja": "層", "ko": "층"},
    "fig_layer": {"ja": "層 {l}", "ko": "층 {l}"},
    "widget_query": {"ja": "クエリ", "ko": "쿼리"},
    "widget_compare": {"ja": "比べるヘッド", "ko": "비교할 헤드"},
    "widget_none": {"ja": "（なし）", "ko": "(없음)"},
    "fig_weight_axis": {"ja": "重み", "ko": "가중치"},
    "fig_query_title": {
        "ja": "クエリ「{token}」の重み（エントロピー {h:.2f} nat、最大 {max:.2f}）",
        "ko": "쿼리 '{token}'의 가중치(엔트로피 {h:.2f} nat, 최대 {max:.2f})",
    },
    "fig_diff_title": {
        "ja": "ヘッド {a} − ヘッド {b}（赤: ヘッド {a} のほうが強く見る）",
        "ko": "헤드 {a} − 헤드 {b}(빨강: 헤드 {a}가 더 강하게 보는 곳)",
    },
    "explorer_no_attention": {
        "ja": "このモデルにはアテンション層（c_attn と n_head を持つモジュール）が見つかりません。",
        "ko": "이 모델에서 어텐션 층(c_attn과 n_head를 가진 모듈)을 찾지 못했습니다.",
    },
    "explorer_plain": {
        "ja": "アテンション・エクスプローラー（層 {l}、ヘッド {h}、トークン {t}）",
        "ko": "어텐션 탐색기(층 {l}개, 헤드 {h}개, 토큰 {t}개)",
    },
    "fig_variance_title": {
        "ja": "q·k の分散（d_k ごと）",
        "ko": "q·k의 분산(d_k별)",
    },
    "fig_maxweight_title": {
        "ja": "ソフトマックスの最大の重み（平均）",
        "ko": "소프트맥스 최대 가중치(평균)",
    },
    "fig_with_scaling": {"ja": "√d_k で割る", "ko": "√d_k로 나눔"},
    "fig_without_scaling": {"ja": "割らない", "ko": "나누지 않음"},
    "table_dk": {"ja": "d_k", "ko": "d_k"},
    "table_var_raw": {"ja": "分散（割らない）", "ko": "분산(나누지 않음)"},
    "table_var_scaled": {"ja": "分散（√d_k で割る）", "ko": "분산(√d_k로 나눔)"},
    "table_max_raw": {"ja": "最大の重み（割らない）", "ko": "최대 가중치(나누지 않음)"},
    "table_max_scaled": {"ja": "最大の重み（√d_k で割る）", "ko": "최대 가중치(√d_k로 나눔)"},
}


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        # Neither language is known yet, so say it in both.
        raise ValueError(" / ".join(MESSAGES["bad_language"][x].format(lang=lang) for x in LANGUAGES))
    _current = lang


def get_language() -> str:
    return _current


def t(key: str, **fields) -> str:
    """The message `key` in the current language, with `fields` filled in."""
    return MESSAGES[key][_current].format(**fields)
